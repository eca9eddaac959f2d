// End to end through the built CLI (run `npm run build` first): `kwatch events` against an embedded
// server started here, changes made with real kubectl and sim faults, asserted on -o ndjson.
import { createServer, request, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { isSynced, kubectl, kwatch, of, Running, type Rec } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const dir = tempDir('kwatch-e2e-events-');
let sim: SimServer;
let env: Record<string, string>;
let nsCount = 0;

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
});
afterAll(() => sim?.close());

/** A fresh namespace per test keeps each run's initial list to what the test made. */
function namespace(): string {
  const name = `e2e-${++nsCount}`;
  sim.api.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name } });
  return name;
}

function pod(ns: string, name: string) {
  return sim.api.create(PODS, { metadata: { name, namespace: ns }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
}

const stageOps = (recs: Rec[], stage: string) => recs.filter((r) => r.stage === stage).map((r) => r.op);

describe('kwatch events (built CLI)', () => {
  it('shows a create, an update and a delete made with kubectl at every stage, in order', async () => {
    const ns = namespace();
    const ev = new Running(['events', 'pods', '-n', ns, '-o', 'ndjson', '--stages', 'all'], env);
    await ev.waitFor(isSynced, 'the initial sync');
    expect((await kubectl(['run', 'web', '--image=nginx', '-n', ns], env)).code).toBe(0);
    expect((await kubectl(['label', 'pod', 'web', 'tier=front', '-n', ns], env)).code).toBe(0);
    expect((await kubectl(['delete', 'pod', 'web', '-n', ns, '--wait=false'], env)).code).toBe(0);
    const key = `${ns}/web`;
    await ev.waitFor((r) => r.stage === 'workqueue' && r.op === 'done' && r.key === key && ev.records.some((d) => d.op === 'OnDelete' && d.key === key), 'the delete to reach the workqueue');
    const { code, signal } = await ev.stop('SIGINT');
    expect(code ?? signal).toBe(0);

    const recs = of(ev.records, key);
    expect(stageOps(recs, 'watch')).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(recs.filter((r) => r.stage === 'watch').map((r) => r.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(stageOps(recs, 'fifo').filter((op) => op !== 'pop')).toEqual(['Added', 'Updated', 'Deleted']);
    expect(stageOps(recs, 'indexer')).toEqual(['add', 'update', 'delete']);
    expect(stageOps(recs, 'handler')).toEqual(['OnAdd', 'OnUpdate', 'OnDelete']);
    expect(stageOps(recs, 'workqueue')).toContain('add');
    expect(stageOps(recs, 'reconcile')).toContain('success');
    // The i-th change travels watch → fifo → indexer → handler → workqueue, in that order.
    const nth = (stage: string, i: number, op?: string) => ev.records.indexOf(recs.filter((r) => r.stage === stage && r.op !== 'pop' && (!op || r.op === op))[i]);
    for (let i = 0; i < 3; i++) {
      const order = [nth('watch', i), nth('fifo', i), nth('indexer', i), nth('handler', i), nth('workqueue', i, 'add')];
      expect(order.every((x) => x >= 0), `every stage saw change ${i}`).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
    }
    for (const r of ev.records) expect(Object.keys(r).slice(0, 5)).toEqual(['time', 'stage', 'op', 'key', 'rv']);
    // The watch-list's initial-events-end bookmark is a watch event too (no object, so no fifo or handler record).
    expect(ev.stderr).toMatch(/^│ watch +│ +4 │ +4 │ ADDED=1 MODIFIED=1 DELETED=1 BOOKMARK=1 +│$/m);
    expect(ev.stderr).toMatch(/^│ reflector +│ .*watch-start=1 initial-events-end=1 synced=1/m);
    expect(ev.stderr).toMatch(/reconnects=0 relists=0 expired=0/);
  });

  it('reconnects after a dropped connection and loses or doubles no handler event', async () => {
    const ns = namespace();
    const ev = new Running(['events', 'pods', '-n', ns, '-o', 'ndjson'], env);
    await ev.waitFor((r) => r.stage === 'reflector' && r.op === 'watch-start', 'the first watch');
    await waitForWatches(ns);
    // An event through the watch first: a watch dropped before any event is a "very short watch",
    // after which client-go backs off and relists instead of re-watching.
    pod(ns, 'a');
    await ev.waitFor((r) => r.stage === 'handler' && r.key === `${ns}/a`, 'OnAdd of a');
    expect(sim.faults.dropWatches('reset')).toBeGreaterThan(0);
    pod(ns, 'b'); // made while the watch is down: the re-watch from the last resourceVersion must bring it
    await ev.waitFor((r) => r.stage === 'reflector' && r.op === 'watch-start' && r.conn === 2, 'the re-watch');
    pod(ns, 'c');
    await ev.waitFor((r) => r.stage === 'handler' && r.key === `${ns}/c`, 'OnAdd of c');
    await ev.stop();
    const handled = ev.records.filter((r) => r.stage === 'handler').map((r) => `${r.op} ${r.key}`);
    expect(handled).toEqual([`OnAdd ${ns}/a`, `OnAdd ${ns}/b`, `OnAdd ${ns}/c`]);
    expect(ev.records.some((r) => r.stage === 'reflector' && r.op === 'watch-close')).toBe(true);
    expect(ev.records.some((r) => r.stage === 'reflector' && r.op === 'relist')).toBe(false);
    expect(ev.stderr).toMatch(/reconnects=1 relists=0/);
  });

  it('shows the 410 after a compaction and relists, with tombstones for objects deleted meanwhile', async () => {
    const ns = namespace();
    pod(ns, 'keep');
    pod(ns, 'gone');
    // LIST+WATCH: the relist after the 410 is a LIST (under watch-list it is a new watch-list).
    const ev = new Running(['events', 'pods', '-n', ns, '-o', 'ndjson', '--no-watch-list'], env);
    await ev.waitFor((r) => r.stage === 'reflector' && r.op === 'watch-start', 'the first watch');
    await waitForWatches(ns);
    pod(ns, 'seen'); // through the watch, so the drop below is not a "very short watch"
    await ev.waitFor((r) => r.stage === 'handler' && r.key === `${ns}/seen`, 'OnAdd of seen');
    // All in one tick, before the client can reconnect: drop, delete unseen, compact past its resourceVersion.
    sim.faults.dropWatches('reset');
    sim.api.delete(PODS, ns, 'gone');
    sim.faults.compact();
    const tomb = await ev.waitFor((r) => r.stage === 'handler' && r.op === 'OnDelete' && r.key === `${ns}/gone`, 'the tombstone delete');
    await ev.stop();
    expect(tomb.tombstone).toBe(true);
    // The tombstone says what it is, and the 410 is explained on stderr as replay --from-rv explains one.
    expect(tomb).toMatchObject({ tombstoneType: 'DeletedFinalStateUnknown', tombstoneExplanation: expect.stringMatching(/^deleted while the watch was down .*last state known at RV \d+$/) });
    expect(ev.stderr).toMatch(/^kwatch: pods: resourceVersion \d+ is too old: the server no longer has the changes after it.*etcd compacts old revisions.*The reflector lists the current state again/m);
    const reflector = ev.records.filter((r) => r.stage === 'reflector').map((r) => r.op);
    expect(reflector).toContain('expired');
    expect(reflector.indexOf('relist')).toBeGreaterThan(reflector.indexOf('expired'));
    expect(ev.records.some((r) => r.stage === 'fifo' && r.op === 'Deleted' && r.key === `${ns}/gone` && r.tombstone === true)).toBe(true);
    // The relist replaces the cache: unchanged objects come back as resync updates, nothing is lost.
    expect(ev.records.filter((r) => r.stage === 'handler' && r.key === `${ns}/keep`).map((r) => `${r.op} ${r.sync ?? ''}`)).toEqual(['OnAdd ', 'OnUpdate true']);
    expect(ev.stderr).toMatch(/relists=1 expired=1/);
  });

  it('stops after --max-events watch events once every stage handled them', async () => {
    const ns = namespace();
    const ev = new Running(['events', 'pods', '-n', ns, '-o', 'ndjson', '--max-events', '2'], env);
    await ev.waitFor(isSynced, 'the initial sync');
    for (const n of ['m1', 'm2', 'm3']) pod(ns, n);
    const { code } = await ev.wait();
    expect(code).toBe(0);
    // Bookmarks (the watch-list's initial-events-end among them) are not counted.
    expect(ev.records.filter((r) => r.stage === 'watch' && r.type !== 'BOOKMARK').map((r) => r.key)).toEqual([`${ns}/m1`, `${ns}/m2`]);
    expect(ev.records.filter((r) => r.stage === 'handler').map((r) => r.key)).toEqual([`${ns}/m1`, `${ns}/m2`]);
  });

  it('TYPE/NAME and TYPE NAME watch one object, as kubectl names it', async () => {
    const ns = namespace();
    for (const n of ['one', 'two']) pod(ns, n);
    // The three runs only read: they go at once.
    const runs = [['po/two'], ['pods', 'two']].map((args) => new Running(['events', ...args, '-n', ns, '-o', 'ndjson', '--until-synced'], env));
    const mixedRun = kwatch(['events', 'pods', 'pod/two', '-n', ns], env);
    for (const ev of runs) {
      const { code } = await ev.wait();
      expect(code).toBe(0);
      expect(ev.records.filter((r) => r.stage === 'handler').map((r) => r.key)).toEqual([`${ns}/two`]);
    }
    const mixed = await mixedRun;
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(/^error: there is no need to specify a resource type as a separate argument/);
  });

  it('--until-synced with several resources: one stream, each record naming its resource', async () => {
    const ns = namespace();
    pod(ns, 'p1');
    const res = await kwatch(['events', 'pods,configmaps', '-n', ns, '-o', 'ndjson', '--until-synced', '--fifo', 'delta'], env);
    expect(res.code).toBe(0);
    const recs = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec);
    expect(recs.filter((r) => r.stage === 'handler').map((r) => `${r.resource} ${r.op} ${r.key}`)).toEqual([`pods OnAdd ${ns}/p1`]);
    expect(new Set(recs.filter(isSynced).map((r) => r.resource))).toEqual(new Set(['pods', 'configmaps']));
    expect(recs.filter((r) => r.stage === 'fifo' && r.op !== 'pop').every((r) => r.fifo === 'delta')).toBe(true);
  });

  it('the default view prints fewer stages than --stages all, and its summary counts the same records', async () => {
    const ns = namespace();
    pod(ns, 'p1');
    pod(ns, 'p2');
    const args = ['events', 'pods,configmaps', '-n', ns, '-o', 'ndjson', '--until-synced'];
    const [shown, all] = await Promise.all([kwatch(args, env), kwatch([...args, '--stages', 'all'], env)]);
    expect([shown.code, all.code]).toEqual([0, 0]);
    const ops = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as Rec).map((r) => `${r.resource} ${r.stage} ${r.op}`);
    expect(ops(all.stdout)).toEqual(expect.arrayContaining(['pods indexer add', 'pods workqueue done', 'pods workqueue forget', 'pods reconcile success']));
    expect(ops(shown.stdout).filter((x) => /indexer|reconcile|workqueue (done|forget)/.test(x))).toEqual([]);
    expect(ops(shown.stdout).filter((x) => x.startsWith('pods handler'))).toEqual(['pods handler OnAdd', 'pods handler OnAdd']);
    // The summary's rows, but http's (the discovery cache may be cold for one of the runs) and the elapsed time.
    const rows = (err: string) => err.split('\n').filter((l) => /^│ (?!http|STAGE)/.test(l));
    expect(rows(shown.stderr)).toEqual(rows(all.stderr));
    expect(rows(shown.stderr).join('\n')).toMatch(/│ indexer +│ +2 │ +2 │ add=2 +│[\s\S]*│ reconcile +│ +2 │ +4 │ start=2 success=2 +│/);
  });

  it('--diff shows the changed field paths of an update', async () => {
    const ns = namespace();
    sim.api.create(PODS, { metadata: { name: 'd', namespace: ns, labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    const ev = new Running(['events', 'pods', 'd', '-n', ns, '-o', 'ndjson', '--diff'], env);
    await ev.waitFor(isSynced, 'the initial sync');
    expect((await kubectl(['label', 'pod', 'd', 'color=blue', '-n', ns], env)).code).toBe(0);
    const upd = await ev.waitFor((r) => r.stage === 'handler' && r.op === 'OnUpdate', 'the OnUpdate');
    await ev.stop();
    // JSON drops the undefined `old` of an added field; resourceVersion and managedFields are noise, left out.
    expect(upd.diff).toEqual([{ path: 'metadata.labels.color', new: 'blue' }]);
    expect(upd).not.toHaveProperty('old');
  });

  it('--raw prints one line per event, exactly as the server sent it', async () => {
    const ns = namespace();
    for (const n of ['r1', 'r2', 'r3']) pod(ns, n);
    const res = await kwatch(['events', 'pods', '-n', ns, '--raw', '-o', 'ndjson', '--max-events', '3'], env);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
    expect(lines.map((l) => JSON.parse(l).object.metadata.name).sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it('never prints Secret data: --raw and --diff mask it unless --show-secrets', async () => {
    const ns = namespace();
    const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
    sim.api.create(SECRETS, { metadata: { name: 'db', namespace: ns }, stringData: { password: 'hunter2' } });
    const [raw, shown] = await Promise.all([
      kwatch(['events', 'secrets', '-n', ns, '--raw', '-o', 'ndjson', '--max-events', '1'], env),
      kwatch(['events', 'secrets', '-n', ns, '--raw', '-o', 'ndjson', '--max-events', '1', '--show-secrets'], env),
    ]);
    expect(raw.code).toBe(0);
    expect(raw.stdout).not.toContain('aHVudGVyMg');
    expect(JSON.parse(raw.stdout).object.data).toEqual({ password: '<masked 7 bytes>' });
    expect(JSON.parse(shown.stdout).object.data).toEqual({ password: 'aHVudGVyMg==' });

    const ev = new Running(['events', 'secrets', '-n', ns, '--diff', '--stages', 'handler', '-o', 'ndjson'], env);
    await ev.waitFor((r) => r.op === 'OnAdd', 'the initial add');
    const cur = sim.api.get(SECRETS, ns, 'db')!;
    sim.api.update(SECRETS, { ...cur, data: { password: Buffer.from('swordfish').toString('base64') } });
    const update = await ev.waitFor((r) => r.op === 'OnUpdate', 'the update');
    await ev.stop('SIGINT');
    expect(update.diff).toEqual([{ path: 'data.password', old: expect.stringMatching(/^<masked 7 bytes #[0-9a-f]{8}>$/), new: expect.stringMatching(/^<masked 9 bytes #[0-9a-f]{8}>$/) }]);
    expect(ev.lines.join('\n')).not.toMatch(/hunter2|swordfish|aHVudGVyMg|c3dvcmRmaXNo/);
  });

  it('--record writes a valid recording, Secret values and managedFields as sent, that a SIGKILL does not cut short', async () => {
    const ns = namespace();
    pod(ns, 'rec1');
    sim.api.create({ group: '', version: 'v1', resource: 'secrets' }, { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'creds', namespace: ns }, type: 'Opaque', data: { password: Buffer.from('hunter22').toString('base64') } });
    const file = join(dir, 'rec.ndjson');
    // LIST+WATCH, to check the list pages (a watch-list recording is replayed in replay.test.ts).
    const ev = new Running(['events', 'pods,secrets', '-n', ns, '-o', 'ndjson', '--record', file, '--no-watch-list'], env);
    await ev.waitFor((r) => isSynced(r) && r.resource === 'secrets', 'the secrets sync');
    await ev.waitFor((r) => isSynced(r) && r.resource === 'pods', 'the pods sync');
    const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
    sim.api.create(PODS, { metadata: { name: 'rec2', namespace: ns, managedFields }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await ev.waitFor((r) => r.stage === 'handler' && r.key === `${ns}/rec2`, 'OnAdd of rec2');
    await ev.stop('SIGKILL');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe(''); // every line complete
    const recs = lines.map((l) => JSON.parse(l));
    expect(recs[0]).toMatchObject({ kind: 'KwatchRecording', formatVersion: 1, masked: true, resources: [{ resource: 'pods', kind: 'Pod', namespace: ns }, { resource: 'secrets', kind: 'Secret' }] });
    const body = recs.slice(1);
    expect(body.filter((r) => r.rec === 'list').map((r) => r.res).sort()).toEqual([0, 1]);
    expect(body.filter((r) => r.rec === 'watch-start')).toHaveLength(2);
    const added = body.find((r) => r.rec === 'event' && r.event.object.metadata.name === 'rec2');
    expect(added).toMatchObject({ res: 0, event: { type: 'ADDED' } });
    // The cache drops managedFields; the recording keeps what the server sent.
    expect(added.event.object.metadata.managedFields).toEqual(managedFields);
    expect(typeof added.t).toBe('number');
    expect(typeof added.conn).toBe('number');
    const secretPage = body.find((r) => r.rec === 'list' && r.res === 1);
    expect(secretPage.page.items[0].data.password).toBe('<masked 8 bytes>');
    expect(readFileSync(file, 'utf8')).not.toContain(Buffer.from('hunter22').toString('base64'));
  });

  // One-shot runs that fail before they watch; they run one at a time, as the tests above (docs/benchmarks.md, "The
  // test suite": running them at once cut no CPU).
  describe('errors: one line on stderr, non-zero exit', { timeout: 60_000 }, () => {
    // The watch-list (the default sync) failed first; the trace shows it and client-go's fallback to LIST, whose
    // error is the one reported (reflector.go: "making progress is better than deadlocking").
    const watchListFellBack = /reflector +watch-error .*during=watch-start[^\n]*\n.*reflector +fallback +name=pods to=list /;
    it('an unknown resource type', async () => {
      const res = await kwatch(['events', 'pods,frobs'], env);
      expect(res).toMatchObject({ code: 1, stdout: '', stderr: 'error: the server doesn\'t have a resource type "frobs"\n' });
    });

    it('a bad label selector, with the server\'s message', async () => {
      const res = await kwatch(['events', 'pods', '-l', 'app in (web'], env);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(watchListFellBack);
      expect(res.stderr).toMatch(/^error: Error from server \(BadRequest\): unable to parse requirement: .*\n$/);
    });

    it('a field selector the resource does not support', async () => {
      const res = await kwatch(['events', 'pods', '--field-selector', 'spec.color=blue'], env);
      expect(res).toMatchObject({ code: 1, stdout: expect.stringMatching(watchListFellBack), stderr: 'error: Error from server (BadRequest): field label not supported: spec.color\n' });
    });

    // Alone: the port of the server it closes must not be handed to the forbidding proxy of the next test meanwhile.
    it.sequential('an unreachable server', async () => {
      const cfg = join(dir, 'unreachable');
      const closed = await startSimServer({ port: 0 });
      await closed.writeKubeconfig(cfg);
      await closed.close();
      // Connection refused is retried (a server restarting) until the first-contact deadline, each retry one line.
      const res = await kwatch(['events', 'pods', '--kubeconfig', cfg, '--request-timeout', '1s'], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^(kwatch: discovery: Unable to connect to the server: .*connection refused; retrying in \d\.\ds\n)+error: Unable to connect to the server: .*connection refused.*; gave up on discovery after 1s of retries .*\n$/);
    });

    it('forbidden: which verb on which resource, in the server\'s words', async () => {
      const message = 'pods is forbidden: User "system:serviceaccount:default:viewer" cannot list resource "pods" in API group "" in the namespace "default"';
      const proxy = await forbiddingProxy(sim.url, '/api/v1/namespaces/default/pods', message);
      try {
        const cfg = join(dir, 'forbidden');
        const { writeKubeconfig } = await import('../../src/sim/kubeconfig.js');
        await writeKubeconfig(cfg, proxy.url);
        const res = await kwatch(['events', 'pods', '--kubeconfig', cfg, '--cache-dir', join(dir, 'cache-forbidden')], env);
        // The error is the fallback LIST's: client-go's reflector falls back to LIST on any watch-list error.
        expect(res).toMatchObject({ code: 1, stdout: expect.stringMatching(watchListFellBack), stderr: `error: Error from server (Forbidden): ${message}\n` });
      } finally {
        proxy.server.close();
      }
    });
  });
});

/** Until the server holds an open watch on the namespace's pods (so a drop really cuts it). */
async function waitForWatches(ns: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!sim.requests().some((r) => r.verb === 'watch' && r.code === 0 && r.url.includes(`/namespaces/${ns}/pods`))) {
    if (Date.now() > deadline) throw new Error('the watch never reached the server');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Forwards everything to `target` except GETs of `path`, which get a 403 Status. */
async function forbiddingProxy(target: string, path: string, message: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === path) {
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: { kind: 'pods' }, code: 403 });
      res.writeHead(403, { 'Content-Type': 'application/json' });
      return res.end(body);
    }
    const up = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
