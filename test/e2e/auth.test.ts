// End to end through the built CLI (run `npm run build` first) against `sim --tls --users`: kwatch verifies the
// server with the kubeconfig's CA, authenticates as the admin (client certificate) and as "dev" (bearer token, bound
// to namespace dev), fails in one line when RBAC or the credentials say no, and never prints a credential.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kwatch, type Result } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const dir = tempDir('kwatch-e2e-auth-');
let sim: SimServer;
let env: Record<string, string>;
/** Every output of every run, to search for credentials at the end. */
const outputs: { args: string[]; text: string }[] = [];

beforeAll(async () => {
  sim = await startSimServer({ tls: true, users: true, nodes: 2 });
  for (const [name, namespace, node] of [['web', 'dev', 'node-1'], ['api', 'dev', 'node-2'], ['db', 'default', 'node-1']]) {
    sim.api.create(PODS, { metadata: { name, namespace }, spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] } });
  }
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
});
afterAll(() => sim?.close());

async function run(args: string[]): Promise<Result> {
  const res = await kwatch(args, env);
  outputs.push({ args, text: res.stdout + res.stderr });
  return res;
}

/** stderr without -v 6..9's request log (klog lines: I1126 08:30:22.169123 …). */
const withoutRequestLog = (stderr: string) => stderr.split('\n').filter((l) => !/^I\d{4} \d\d:/.test(l)).join('\n');

const AS = { admin: ['--context', 'kwatch-sim'], dev: ['--context', 'kwatch-sim-dev'] };
/** kwatch's commands in namespace dev, each with what its output must show. */
const COMMANDS: [string[], RegExp][] = [
  [['events', 'pods', '-n', 'dev', '-o', 'ndjson', '--until-synced'], /"stage":"handler","op":"OnAdd","key":"dev\/web"/],
  [['list', 'pods', '-n', 'dev'], /Total: 2 items in 1 page/],
  [['index', 'pods', '--by', 'nodeName', '-n', 'dev', '--show-keys'], /node-1\s+│\s+1 │ dev\/web/],
  [['api-resources'], /^pods\s+po\s+v1\s+true\s+Pod$/m],
];

describe('kwatch against the TLS sim with users', () => {
  for (const who of ['admin', 'dev'] as const) {
    it(`runs events, list, index and api-resources as ${who}, at -v 0 and -v 9`, async () => {
      const runs = COMMANDS.flatMap(([args, expected]) => [0, 9].map((v) => ({ args: [...args, ...AS[who], '-v', String(v)], expected })));
      const results = await Promise.all(runs.map((r) => run(r.args)));
      results.forEach((res, i) => {
        expect(res.code, `${runs[i].args.join(' ')}\n${res.stderr}`).toBe(0);
        expect(res.stdout, runs[i].args.join(' ')).toMatch(runs[i].expected);
      });
    });
  }

  it('lets the admin read every namespace', async () => {
    const res = await run(['list', 'pods', '-A', ...AS.admin]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Total: 3 items/);
  });

  it('fails in one line that suggests -n when dev reads every namespace', async () => {
    const forbidden = 'error: Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope (reading every namespace needs access to all of them: use -n NAMESPACE for one you may read)\n';
    const results = await Promise.all([
      run(['list', 'pods', '-A', ...AS.dev]),
      run(['events', 'pods', '-A', '--max-events', '1', ...AS.dev]),
      run(['index', 'pods', '--by', 'nodeName', '-A', ...AS.dev, '--sync-timeout', '20s']),
      run(['index', 'pods', '--by', 'nodeName', '-A', ...AS.dev, '-v', '9']),
    ]);
    for (const res of results) {
      expect(withoutRequestLog(res.stderr)).toBe(forbidden);
      expect(res.code).toBe(1);
    }
  });

  it('does not suggest -n for a cluster-scoped resource', async () => {
    const res = await run(['list', 'nodes', ...AS.dev]);
    expect(res.stderr).toBe('error: Error from server (Forbidden): nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope\n');
  });

  it('fails in one clear line for a token the server does not know (401)', async () => {
    const bad = join(dir, 'bad-token');
    writeFileSync(bad, readFileSync(env.KUBECONFIG, 'utf8').replace(sim.credentials!.users!.dev.token, 'not-the-dev-token'), { mode: 0o600 });
    for (const v of ['0', '9']) {
      const res = await run(['list', 'pods', '--kubeconfig', bad, ...AS.dev, '-v', v]);
      expect(res.code).toBe(1);
      expect(withoutRequestLog(res.stderr)).toBe('error: You must be logged in to the server (Unauthorized): the server did not accept the credentials of the kubeconfig\'s user\n');
      expect(res.stdout + res.stderr).not.toContain('not-the-dev-token');
    }
  });

  it('never prints the token or the client key, whatever the verbosity', () => {
    const users = sim.credentials!.users!;
    const keyBody = users.admin.keyPem.split('\n').filter((l) => l && !l.startsWith('-----'));
    const secrets = [users.dev.token, Buffer.from(users.admin.keyPem).toString('base64'), ...keyBody];
    expect(outputs.length).toBeGreaterThanOrEqual(20);
    for (const { args, text } of outputs) {
      for (const s of secrets) expect(text.includes(s), `${args.join(' ')} printed a credential`).toBe(false);
      expect(text, args.join(' ')).not.toMatch(/PRIVATE KEY/);
    }
  });
});
