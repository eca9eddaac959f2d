// End to end through the built CLI (node bin/run.js): kwatch index against the embedded server with a
// seeded workload, judged by what real kubectl lists.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../src/sim/kubeconfig.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { reportRows } from './report-rows.js';
import { Running } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const dir = tempDir('kwatch-e2e-index-');
let sim: SimServer;
let churning: SimServer;
const env = (kubeconfig: string) => ({ ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') });

interface Result { stdout: string; stderr: string; code: number }
function run(cmd: string, args: string[], opts: { kubeconfig?: string; input?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env: env(opts.kubeconfig ?? join(dir, 'static')), timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}
const kwatch = (args: string[], kubeconfig?: string) => run(process.execPath, [BIN, ...args], { kubeconfig });
const kubectl = (args: string[], input?: string) => run(KUBECTL, args, { input });

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Pod { metadata: { namespace: string; name: string; labels?: Record<string, string> }; spec: { nodeName?: string }; status?: { phase?: string } }
/** value → sorted keys, computed from kubectl's pods. */
function group(pods: Pod[], valueOf: (p: Pod) => string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of pods) (out[valueOf(p) ?? '<none>'] ??= []).push(`${p.metadata.namespace}/${p.metadata.name}`);
  for (const keys of Object.values(out)) keys.sort();
  return out;
}
const sortedKeys = (o: Record<string, string[]>) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));

/** A proxy in front of `target` that silently drops DELETED events from watch streams: a cache behind it misses deletes. */
async function lossyProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const up = request(target + req.url, { method: req.method, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      if (!req.url?.includes('watch=true')) return void upRes.pipe(res);
      let pending = '';
      upRes.on('data', (chunk: Buffer) => {
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop()!;
        for (const line of lines) if (!line.includes('"type":"DELETED"')) res.write(line + '\n');
      });
      upRes.on('end', () => res.end(pending));
    });
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

beforeAll(async () => {
  [sim, churning] = await Promise.all([startSimServer({ port: 0, seed: 2, nodes: 4, pods: 60, churn: 0 }), startSimServer({ port: 0, seed: 6, nodes: 3, pods: 40, churn: 40 })]);
  await Promise.all([sim.writeKubeconfig(join(dir, 'static')), churning.writeKubeconfig(join(dir, 'churning'))]);
});
afterAll(async () => {
  await Promise.all([sim?.close(), churning?.close()]);
});

describe('kwatch index (built CLI)', () => {
  it('counts pods per node and per phase exactly as a computation over kubectl get pods -A -o json does', async () => {
    const [theirs, ours] = await Promise.all([kubectl(['get', 'pods', '-A', '-o', 'json']), kwatch(['index', 'pods', '-A', '--by', 'nodeName', '--by', 'phase', '-o', 'json'])]);
    expect(ours.stderr).toBe('');
    expect(ours.code).toBe(0);
    const pods = JSON.parse(theirs.stdout).items as Pod[];
    const indices = JSON.parse(ours.stdout);
    expect(Object.keys(indices)).toEqual(['nodeName', 'phase']);
    expect(sortedKeys(indices.nodeName)).toEqual(sortedKeys(group(pods, (p) => p.spec.nodeName)));
    expect(sortedKeys(indices.phase)).toEqual(sortedKeys(group(pods, (p) => p.status?.phase)));
    // The workload has unscheduled (Pending) pods: they show under <none>, not nowhere.
    expect(indices.nodeName['<none>']?.length).toBeGreaterThan(0);

    const table = await kwatch(['index', 'pods', '-A', '--by', 'nodeName']);
    const counts = Object.fromEntries(reportRows(table.stdout).map((r) => [r.VALUE, r.COUNT]));
    expect(counts).toEqual(Object.fromEntries(Object.entries(group(pods, (p) => p.spec.nodeName)).map(([v, k]) => [v, String(k.length)])));
    expect(table.stdout).toMatch(/^nodeName: 60 objects under 5 values \(\d+ under <none>\); index built in [\d.]+ms, ~[\d.]+kB$/m);
  });

  it('--value returns exactly the pods kubectl lists on that node, in IndexKeys order', async () => {
    const theirs = await kubectl(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-002', '-o', 'json']);
    const expected = (JSON.parse(theirs.stdout).items as Pod[]).map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
    expect(expected.length).toBeGreaterThan(0);
    const list = await kwatch(['index', 'pods', '-A', '--by', 'nodeName', '--value', 'node-002', '-o', 'json']);
    expect(list.code).toBe(0);
    const doc = JSON.parse(list.stdout);
    expect(doc.kind).toBe('List');
    expect(doc.items.map((p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(expected);
    // The sim's list items carry no kind (as kube's typed lists); kwatch's client fills it from the list's kind.
    expect(doc.items.every((p: { kind?: string; apiVersion?: string }) => p.kind === 'Pod' && p.apiVersion === 'v1')).toBe(true);
    const names = await kwatch(['index', 'pods', '-A', '--by', 'nodeName', '--value', 'node-002', '-o', 'name']);
    expect(names.stdout.trim().split('\n')).toEqual(expected.map((k) => `pod/${k.split('/')[1]}`));
  });

  // Bounded by the waits (a minute each: a CLI start and its sync took over 10 s at load 25), not by a --for that a
  // loaded machine could outlive before the last kubectl change: the run is ended by the signal once all is seen.
  it('--watch -o ndjson reports the index changes of pods kubectl deletes, recreates on another node and relabels', { timeout: 180_000 }, async () => {
    const pods = JSON.parse((await kubectl(['get', 'pods', '-A', '-o', 'json'])).stdout).items as Pod[];
    const [moved, deleted, relabeled] = pods.filter((p) => p.spec.nodeName && p.spec.nodeName !== 'node-004');
    const key = (p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`;
    // Running parses whole lines only: a record split across two reads is never half-parsed.
    const run = new Running(['index', 'pods', '-A', '--by', 'nodeName', '--by', 'label:kwatch-test', '--watch', '-o', 'ndjson'], { KUBECONFIG: join(dir, 'static'), KUBECACHEDIR: join(dir, 'cache') });
    let exit;
    try {
      // The initial list arrives as adds.
      await run.until(() => run.records.filter((r) => r.op === 'add').length === 60, 'the initial adds', 60_000);
      expect(run.records[0]).toMatchObject({ stage: 'indexer', op: 'add', indices: { nodeName: { old: [] }, 'label:kwatch-test': { old: [], new: ['<none>'] } } });
      const ns = moved.metadata.namespace;
      expect((await kubectl(['delete', 'pod', '-n', ns, moved.metadata.name, '--wait=false'])).code).toBe(0);
      const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: moved.metadata.name, namespace: ns }, spec: { nodeName: 'node-004', containers: [{ name: 'c', image: 'nginx' }] } };
      expect((await kubectl(['create', '-f', '-'], JSON.stringify(manifest))).code).toBe(0);
      expect((await kubectl(['delete', 'pod', '-n', deleted.metadata.namespace, deleted.metadata.name, '--wait=false'])).code).toBe(0);
      expect((await kubectl(['label', 'pod', '-n', relabeled.metadata.namespace, relabeled.metadata.name, 'kwatch-test=yes'])).code).toBe(0);
      await run.waitFor((r) => r.op === 'update' && r.key === key(relabeled), 'the relabel', 60_000);
      const changes = run.records.slice(60).map((r) => [r.op, r.key, r.indices]);
      expect(changes).toEqual([
        ['delete', key(moved), { nodeName: { old: [moved.spec.nodeName], new: [] }, 'label:kwatch-test': { old: ['<none>'], new: [] } }],
        ['add', key(moved), { nodeName: { old: [], new: ['node-004'] }, 'label:kwatch-test': { old: [], new: ['<none>'] } }],
        ['delete', key(deleted), { nodeName: { old: [deleted.spec.nodeName], new: [] }, 'label:kwatch-test': { old: ['<none>'], new: [] } }],
        ['update', key(relabeled), { 'label:kwatch-test': { old: ['<none>'], new: ['yes'] } }],
      ]);
    } finally {
      exit = await run.stop();
    }
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('--watch without a terminal prints timestamped blocks and names the values whose count changed', async () => {
    // Ended by the signal once two blocks and a change are out, however long the machine takes to get there.
    const run = new Running(['index', 'pods', '-A', '--by', 'nodeName', '--watch', '--interval', '1s'], { KUBECONFIG: join(dir, 'churning'), KUBECACHEDIR: join(dir, 'cache') });
    const stdout = () => run.lines.map((l) => `${l}\n`).join('');
    const blocks = () => stdout().split(/^--- \d\d:\d\d:\d\d\.\d{3} ---\n/m).filter(Boolean);
    let exit;
    try {
      // 40 changes a second: something moved between the first and the last block.
      await run.until(() => blocks().length >= 2 && /^changed: /m.test(stdout()), 'two blocks and a change', 60_000);
    } finally {
      exit = await run.stop();
    }
    expect(exit).toEqual({ code: 0, signal: null });
    expect(blocks().length).toBeGreaterThanOrEqual(2);
    expect(blocks()[0]).toMatch(/^pods by nodeName: \d+ objects at resourceVersion \d+\nVALUE\s+COUNT\s+CHANGE\nnode-00\d/);
    expect(stdout()).toMatch(/^changed: /m);
  });

  it('--check finds a churning cache in sync, because it lists at the cache resourceVersion', async () => {
    const res = await kwatch(['index', 'pods', '-A', '--check', '-o', 'json'], join(dir, 'churning'));
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report).toMatchObject({ consistency: 'exact', inSync: true, missing: [], extra: [], stale: [] });
    expect(report.listResourceVersion).toBe(report.cacheResourceVersion);
  });

  it('--watch --check finds the pod a lossy watch never deleted, and exits 3', { timeout: 180_000 }, async () => {
    const proxy = await lossyProxy(sim.url);
    let running: ChildProcess | undefined;
    try {
      await writeKubeconfig(join(dir, 'lossy'), proxy.url);
      // No --for: a loaded machine could outlive it before the marker shows; the signal ends the run.
      const child = spawn(process.execPath, [BIN, 'index', 'pods', '-A', '--by', 'nodeName', '--watch', '--check', '--interval', '200ms'], { env: env(join(dir, 'lossy')) });
      running = child;
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await until(() => out.includes('VALUE'), 'the first table', 30_000); // a sync on a loaded machine took over 10 s
      const pods = JSON.parse((await kubectl(['get', 'pods', '-A', '-o', 'json'])).stdout).items as Pod[];
      const victim = pods[pods.length - 1];
      expect((await kubectl(['delete', 'pod', '-n', victim.metadata.namespace, victim.metadata.name, '--wait=false'])).code).toBe(0);
      // A change that gets through moves the cache past the lost DELETED event.
      const marker = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'marker', namespace: victim.metadata.namespace }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
      expect((await kubectl(['create', '-f', '-'], JSON.stringify(marker))).code).toBe(0);
      await until(() => /^changed: .*<none>/m.test(out), 'the marker pod in the table', 60_000);
      child.kill('SIGINT');
      expect(await exited).toBe(3);
      expect(out).toMatch(new RegExp(`^cache check pods: DIFFERS — 1 extra \\(${pods.length + 1} cached, ${pods.length} listed\\); cache at resourceVersion (\\d+), LIST at the same resourceVersion \\(Exact\\)$`, 'm'));
      expect(reportRows(out.slice(out.indexOf('cache check pods:')))).toContainEqual({ DIFF: 'extra', KEY: `${victim.metadata.namespace}/${victim.metadata.name}`, 'CACHE RV': expect.stringMatching(/^\d+$/), 'SERVER RV': '<none>' });
    } finally {
      if (running?.exitCode === null) running.kill();
      await proxy.close();
    }
  });

  it('reads pods when no resource is named, in the context\'s namespace unless -A, with the resource before or after --by', async () => {
    const theirs = JSON.parse((await kubectl(['get', 'pods', '-o', 'json'])).stdout).items as Pod[];
    const expected = sortedKeys(group(theirs, (p) => p.spec.nodeName));
    expect(new Set(theirs.map((p) => p.metadata.namespace)).size).toBe(1);
    // Every run here only reads: they go at once.
    const [all, everywhereList, ...runs] = await Promise.all([
      kwatch(['index', '--by', 'nodeName', '-A']),
      kubectl(['get', 'pods', '-A', '-o', 'json']),
      ...[
        ['index', '--by', 'nodeName', '-o', 'json'],
        ['index', '--by', 'nodeName', 'pods', '-o', 'json'],
        ['index', 'pods', '--by', 'nodeName', '-o', 'json'],
        ['index', '--by', 'nodeName', '--by', 'phase', 'po', '-o', 'json'],
      ].map((args) => kwatch(args)),
    ]);
    for (const res of runs) {
      expect(res.code, res.stderr).toBe(0);
      expect(sortedKeys((JSON.parse(res.stdout) as Record<string, Record<string, string[]>>).nodeName)).toEqual(expected);
    }
    const everywhere = JSON.parse(everywhereList.stdout).items as Pod[];
    expect(everywhere.length).toBeGreaterThan(theirs.length);
    expect(all.stdout).toMatch(new RegExp(`^nodeName: ${everywhere.length} objects`, 'm'));
  });

  it('--sim needs no kubeconfig; bad flags are one line and exit code 1', async () => {
    const [res, bad, twice] = await Promise.all([
      kwatch(['index', 'pods', '--by', 'nodeName', '--sim', '--sim-churn', '0'], join(dir, 'nowhere')),
      kwatch(['index', 'pods', '--by', 'nodename', '--sim']),
      kwatch(['index', 'pods', '--by', 'phase', '--by', 'nodeName', '--value', 'x', '--sim']),
    ]);
    expect(res.code).toBe(0);
    expect(reportRows(res.stdout)[0]).toMatchObject({ VALUE: expect.stringMatching(/^node-00\d$/), COUNT: expect.stringMatching(/^\d+$/), KEYS: expect.stringMatching(/\S/) });
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^error: invalid --by: unknown index "nodename"[^\n]*\n$/);
    expect(twice.stderr).toBe('error: --value needs exactly one --by\n');
  });
});
