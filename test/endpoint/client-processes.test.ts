// Clients are processes (issue 37, A4): behind the endpoint, with the command's pid as the root of its clients, real
// processes are told apart by the process behind each connection, not by their User-Agent: two programs sending one
// User-Agent are two clients, a shell script's kubectl calls are one client (each call's first list no relist), and
// ruby-kubeclient, which lists with rest-client and watches with http.rb, is one client whose list after a 410 is the
// relist a reflector must do.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { writeEndpointKubeconfig } from '../../src/endpoint/endpoint-kubeconfig.js';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { parseInjectSpec, type InjectFault } from '../../src/faults/inject-spec.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { KUBECTL } from '../kubectl-lookup.js';

const onLinux = process.platform === 'linux';
const hasRubyClient = await new Promise<boolean>((resolve) => execFile('ruby', ['-e', 'require "kubeclient"'], (err) => resolve(!err)));

let sim: SimServer;
let upstream: Connection;
let dir: string;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0 });
  upstream = connectionFromUrl(sim.url);
  dir = mkdtempSync(join(tmpdir(), 'kwatch-client-processes-'));
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `command` behind an endpoint whose clients are rooted at it (as `reconcile --exec` roots them at the child),
 * until it exits; answers its output and the endpoint's records.
 */
async function runBehindEndpoint(name: string, command: string, args: string[], faults: InjectFault[] = []): Promise<{ code: number; output: string; records: TraceRecord[] }> {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  let root: number | undefined;
  const endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000, faults, clientRoot: () => root });
  endpoint.watchFaults.start();
  try {
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    await writeEndpointKubeconfig(kubeconfig, { server: endpoint.url, token: endpoint.token, namespace: 'default' });
    const child = spawn(command, args, { env: { ...process.env, KUBECONFIG: kubeconfig, URL: endpoint.url, KUBECTL }, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    root = child.pid;
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number>((resolve) => child.once('close', (c) => resolve(c ?? 1)));
    clearTimeout(timer);
    return { code, output, records };
  } finally {
    await endpoint.close();
  }
}

const clientsOf = (records: readonly TraceRecord[]) => [...new Set(records.filter((r) => r.op === 'http').map((r) => r.client))].sort();

describe.skipIf(!onLinux)('clients are processes', () => {
  it('two programs that send the same User-Agent are two clients, each named program[pid], each http record with its pid', async () => {
    // Each lists configmaps twice, a little apart, so that both run at once.
    const controller = `
import { get } from 'node:http';
const list = () => new Promise((resolve, reject) => get(process.env.URL + '/api/v1/namespaces/default/configmaps', { headers: { 'user-agent': 'same-agent/1.0' } }, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject));
await list();
await new Promise((r) => setTimeout(r, 300));
await list();
`;
    writeFileSync(join(dir, 'ctrl-a.mjs'), controller);
    writeFileSync(join(dir, 'ctrl-b.mjs'), controller);
    const r = await runBehindEndpoint('two-programs', 'sh', ['-c', `"${process.execPath}" ctrl-a.mjs & "${process.execPath}" ctrl-b.mjs & wait`]);
    expect(r.code, r.output).toBe(0);
    const clients = clientsOf(r.records);
    expect(clients).toEqual([expect.stringMatching(/^ctrl-a\.mjs\[\d+\]$/), expect.stringMatching(/^ctrl-b\.mjs\[\d+\]$/)]);
    const http = r.records.filter((x) => x.op === 'http');
    expect(http).toHaveLength(4);
    for (const h of http) expect(h.client).toBe(`${String(h.client).split('[')[0]}[${String(h.pid)}]`);
  }, 90_000);

  it('a shell script\'s kubectl calls (subshells included) are one client, and each call\'s first list is no relist', async () => {
    const script = 'for i in 1 2; do "$KUBECTL" get configmaps -o name >/dev/null; ("$KUBECTL" get configmaps -o name >/dev/null); done';
    const r = await runBehindEndpoint('kubectl-loop', 'sh', ['-c', script]);
    expect(r.code, r.output).toBe(0);
    expect(clientsOf(r.records)).toEqual([expect.stringMatching(/^kubectl\[\d+\]$/)]);
    const lists = r.records.filter((x) => x.op === 'http' && x.method === 'GET' && x.path === '/api/v1/namespaces/default/configmaps');
    expect(new Set(lists.map((x) => x.pid)).size).toBe(4);
    expect(r.records.filter((x) => x.op === 'relist')).toEqual([]);
  }, 90_000);

  it.skipIf(!hasRubyClient)('ruby-kubeclient (rest-client lists, http.rb watches) is one client: its list after a 410 on its watch is a relist for that 410', async () => {
    const script = `
require 'kubeclient'
cfg = Kubeclient::Config.read(ENV['KUBECONFIG'])
ctx = cfg.context
c = Kubeclient::Client.new(ctx.api_endpoint + '/api', 'v1', ssl_options: ctx.ssl_options, auth_options: ctx.auth_options)
rv = c.get_config_maps(namespace: 'default').resourceVersion
c.watch_config_maps(namespace: 'default', resource_version: rv) do |notice|
  if notice.type == 'ERROR' && notice.object.code == 410
    puts "expired"
    break
  end
end
puts "relisted #{c.get_config_maps(namespace: 'default').size}"
`;
    writeFileSync(join(dir, 'relister.rb'), script);
    // Under a shell, not the root itself: the process's second connection (another library, another User-Agent)
    // joins the client its first one made.
    const r = await runBehindEndpoint('ruby', 'sh', ['-c', 'ruby relister.rb; exit $?'], [parseInjectSpec('expire@1s')]);
    expect(r.output).toMatch(/^expired\nrelisted \d+$/m);
    expect(clientsOf(r.records)).toEqual([expect.stringMatching(/^relister\.rb\[\d+\]$/)]);
    expect(r.records.filter((x) => x.op === 'relist')).toEqual([expect.objectContaining({ resource: 'configmaps', reason: expect.stringMatching(/^it was sent 410 Gone/) })]);
  }, 90_000);
});
