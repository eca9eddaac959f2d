// The example controllers that are not JS modules (examples/controllers/), run as a user would run them against
// the embedded API server: the Python one on Debian's python3-kubernetes, the shell one on kubectl. Objects are
// written with kubectl; each test waits for the controller's own log line saying it acted (or saw nothing to do)
// and then checks the objects the server holds. Last, each runs behind the built CLI's `kwatch reconcile --exec`
// (overlay: its writes land in a local fork of this server) and --once gives the verdict.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { BIN, KUBECTL, childEnv, kubectl, type Rec } from '../e2e/events-helpers.js';
import { ControllerProcess, stopAll } from './controller-process.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'controllers');
const KEEPER = join(EXAMPLES, 'configmap-secret-keeper.py');
const MIRROR = join(EXAMPLES, 'label-mirror.sh');
/** Debian's python3 (the pyenv python3 first on PATH has no kubernetes module). */
const PYTHON = '/usr/bin/python3';
const pythonClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0;
if (!pythonClient) process.stderr.write(`skipping the Python controller's tests: ${PYTHON} cannot import kubernetes (apt-get install python3-kubernetes; .ci/run does)\n`);

let sim: SimServer;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kwatch-examples-'));
  // controllers: the garbage collector follows the Secret's ownerReference when its ConfigMap goes.
  sim = await startSimServer({ port: 0, controllers: true });
  kubeconfig = join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
});

afterEach(stopAll);

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** kubectl against the sim; fails the test with kubectl's stderr when it fails. */
async function k(args: string[], input?: string): Promise<string> {
  const res = await kubectl(args, { KUBECONFIG: kubeconfig }, input);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string>; ownerReferences?: unknown[] };
  data?: Record<string, string>;
}
const getObj = async (kind: string, ns: string, name: string) => JSON.parse(await k(['get', kind, name, '-n', ns, '-o', 'json'])) as Obj;

/** Polls (every 50 ms, at most `ms`) until `check` resolves true. */
async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

const configMap = (ns: string, name: string, meta: { labels?: Record<string, string>; annotations?: Record<string, string> }, data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...meta }, data });

describe.skipIf(!pythonClient)(`configmap-secret-keeper.py (${PYTHON}, python3-kubernetes)`, () => {
  const keep = { 'kwatch.dev/keep-secret': 'true' };

  it('creates the owned Secret, updates it when the ConfigMap changes, writes nothing when in step, exits 0 on SIGTERM', async () => {
    const ns = 'keeper';
    await k(['create', 'namespace', ns]);
    await k(['apply', '-f', '-'], configMap(ns, 'app', { labels: keep }, { 'db.host': 'db.internal', port: '5432' }));
    await k(['apply', '-f', '-'], configMap(ns, 'plain', {}, { x: '1' }));
    // A Secret of the same name that the ConfigMap does not control is never taken over.
    await k(['apply', '-f', '-'], configMap(ns, 'other', { labels: keep }, { a: 'b' }));
    await k(['create', 'secret', 'generic', 'other-secret', '-n', ns, '--from-literal=mine=1']);
    const foreign = await getObj('secret', ns, 'other-secret');

    // KUBECONFIG from the environment, and the namespace from the flag.
    const keeper = new ControllerProcess(PYTHON, [KEEPER, '-n', ns], childEnv({ KUBECONFIG: kubeconfig }));
    await keeper.waitForLine(`created secret ${ns}/app-secret (2 keys) for configmap ${ns}/app`);
    await keeper.waitForLine(`skipped secret ${ns}/other-secret: it exists and configmap ${ns}/other does not control it`);
    const cm = await getObj('configmap', ns, 'app');
    const secret = await getObj('secret', ns, 'app-secret');
    expect(secret.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'app', uid: cm.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(secret.data).toEqual({ 'db.host': b64('db.internal'), port: b64('5432') });
    expect(await getObj('secret', ns, 'other-secret')).toEqual(foreign);

    let from = keeper.lines.length;
    await k(['patch', 'configmap', 'app', '-n', ns, '--type', 'merge', '-p', JSON.stringify({ data: { port: '6432', user: 'app' } })]);
    await keeper.waitForLine(`updated secret ${ns}/app-secret: keys port, user`, from);
    const updated = await getObj('secret', ns, 'app-secret');
    expect(updated.data).toEqual({ 'db.host': b64('db.internal'), port: b64('6432'), user: b64('app') });
    expect(updated.metadata.uid).toBe(secret.metadata.uid);

    // A change that leaves the data as it is: the controller reconciles (its "in step" line names the ConfigMap's
    // new resourceVersion) and the Secret keeps its resourceVersion.
    from = keeper.lines.length;
    await k(['label', 'configmap', 'app', '-n', ns, 'team=payments']);
    const relabelled = await getObj('configmap', ns, 'app');
    await keeper.waitForLine(`in step: secret ${ns}/app-secret (configmap resourceVersion ${relabelled.metadata.resourceVersion})`, from);
    expect((await getObj('secret', ns, 'app-secret')).metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
    expect(keeper.linesMatching(/^(created|updated) /, from)).toEqual([]);

    // The ownerReference is real: the garbage collector deletes the Secret with its ConfigMap.
    await k(['delete', 'configmap', 'app', '-n', ns]);
    // The wait reads the sim's store (no kubectl run per poll); kubectl judges once it is over.
    await until(async () => sim.api.get(SECRETS, ns, 'app-secret') === undefined, 'the garbage collector to delete app-secret');
    const secretsLeft = await k(['get', 'secrets', '-n', ns, '-o', 'name']);
    expect(secretsLeft).not.toContain('secret/app-secret');
    expect(secretsLeft).not.toContain('plain-secret');

    expect(await keeper.stop()).toEqual({ code: 0, signal: null });
    expect(keeper.lines.at(-1)).toBe('SIGTERM: stopping');
  }, 90_000);

  it('resumes a broken watch from its resourceVersion, and lists again after 410 Gone without writing; reads again after a 409 on its write, and backs off and lists again after a 500', async () => {
    const ns = 'keeper-faults';
    await k(['create', 'namespace', ns]);
    await k(['apply', '-f', '-'], configMap(ns, 'app', { labels: keep }, { k: 'v1' }));
    const keeper = new ControllerProcess(PYTHON, [KEEPER, '--kubeconfig', kubeconfig, '--namespace', ns], childEnv({ KUBECONFIG: join(dir, 'missing') }));
    await keeper.waitForLine(`created secret ${ns}/app-secret (1 keys) for configmap ${ns}/app`);

    // The connection dies mid-watch: the controller resumes from the last resourceVersion it saw (no new list),
    // and the resumed watch delivers the next change.
    let from = keeper.lines.length;
    // The controller opens its watch after its first reconcile has printed: the connection is cut once it exists.
    let dropped = 0;
    await until(async () => (dropped = sim.faults.dropWatches('reset')) > 0, 'the controller to open its watch');
    expect(dropped).toBeGreaterThan(0);
    await keeper.waitForLine(/^connection lost \(\w+\): resuming from resourceVersion \d+ after a pause$/, from);
    await k(['patch', 'configmap', 'app', '-n', ns, '--type', 'merge', '-p', '{"data":{"k":"v2"}}']);
    await keeper.waitForLine(`updated secret ${ns}/app-secret: keys k`, from);
    expect(keeper.linesMatching(/^listed /, from)).toEqual([]);
    const secret = await getObj('secret', ns, 'app-secret');
    expect(secret.data).toEqual({ k: b64('v2') });

    // The history moves past the controller's resourceVersion (a change it does not watch, then a compaction) and
    // its watch ends: resuming answers 410 Gone, so it lists again and finds everything in step.
    from = keeper.lines.length;
    await k(['create', 'configmap', 'unwatched', '-n', ns]);
    sim.faults.compact();
    expect(sim.faults.dropWatches('end')).toBeGreaterThan(0);
    await keeper.waitForLine(/^watch expired at resourceVersion \d+ \(410 Gone\): listing again$/, from);
    const listed = await keeper.waitForLine(/^listed 1 configmaps \(kwatch\.dev\/keep-secret=true\) in keeper-faults at resourceVersion \d+$/, from);
    await keeper.waitForLine(`in step: secret ${ns}/app-secret`, listed);
    expect((await getObj('secret', ns, 'app-secret')).metadata.resourceVersion).toBe(secret.metadata.resourceVersion);
    expect(keeper.linesMatching(/^(created|updated) /, from)).toEqual([]);

    // The same controller, on: a write answered 409 is read again and retried; a 500 sends it back to a fresh list.
    // (One keeper process for both parts: each start of python3-kubernetes costs ~0.5 s of CPU.)
    from = keeper.lines.length;
    sim.faults.failNext({ code: 409, verb: 'update', path: `/namespaces/${ns}/secrets/app-secret` });
    await k(['patch', 'configmap', 'app', '-n', ns, '--type', 'merge', '-p', '{"data":{"k":"v3"}}']);
    await keeper.waitForLine(`updated secret ${ns}/app-secret: keys k`, from);
    expect(keeper.lines.slice(from)).toEqual([`conflict updating secret ${ns}/app-secret: reading it again`, `updated secret ${ns}/app-secret: keys k`]);

    from = keeper.lines.length;
    sim.faults.failNext({ code: 500, verb: 'update', path: `/namespaces/${ns}/secrets/app-secret` });
    await k(['patch', 'configmap', 'app', '-n', ns, '--type', 'merge', '-p', '{"data":{"k":"v4"}}']);
    await keeper.waitForLine(`updated secret ${ns}/app-secret: keys k`, from);
    expect(keeper.lines.slice(from, from + 2)).toEqual([
      `updating secret ${ns}/app-secret: 500 Internal Server Error: listing again after a pause`,
      expect.stringMatching(/^listed 1 configmaps \(kwatch\.dev\/keep-secret=true\) in keeper-faults at resourceVersion \d+$/),
    ]);
    expect((await getObj('secret', ns, 'app-secret')).data).toEqual({ k: b64('v4') });
    expect(await keeper.stop()).toEqual({ code: 0, signal: null });
  }, 90_000);

  it('says in one line that it has no kubeconfig, and exits 1', async () => {
    const keeper = new ControllerProcess(PYTHON, [KEEPER, '--kubeconfig', join(dir, 'nowhere')], childEnv({}));
    expect(await keeper.exit()).toEqual({ code: 1, signal: null });
    expect(keeper.lines).toHaveLength(1);
    expect(keeper.lines[0]).toMatch(/^error: cannot load the kubeconfig: .* \(set KUBECONFIG or pass --kubeconfig\)$/);
  });
});

/**
 * A kubectl for label-mirror.sh (its KUBECTL) that can hold the controller's next `label` before it runs: hold() arms
 * it, held() says a label is waiting, release() lets it go. Every other call is kubectl's own.
 */
function labelGate(): { kubectl: string; hold(): void; held(): Promise<boolean>; release(): void } {
  const gateDir = mkdtempSync(join(dir, 'label-gate-'));
  const [armed, waiting, released] = ['armed', 'waiting', 'released'].map((f) => join(gateDir, f));
  const kubectlPath = join(gateDir, 'kubectl');
  // Only the first label after hold() waits (mv is atomic: one caller takes the arming), at most 60 s.
  writeFileSync(kubectlPath, `#!/bin/sh
for a in "$@"; do
  if [ "$a" = label ] && mv '${armed}' '${waiting}' 2>/dev/null; then
    n=0; while [ ! -e '${released}' ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
    break
  fi
done
exec '${KUBECTL}' "$@"
`, { mode: 0o755 });
  return {
    kubectl: kubectlPath,
    hold: () => writeFileSync(armed, ''),
    held: async () => existsSync(waiting),
    release: () => writeFileSync(released, ''),
  };
}

const mirrorLabel = async (ns: string, name: string) => (await getObj('configmap', ns, name)).metadata.labels?.mirrored;

describe('label-mirror.sh (kubectl)', () => {
  const mirrorOf = mirrorLabel;

  it('labels annotated ConfigMaps, follows the annotation, writes nothing when in step or after a relist, exits 0 on SIGTERM', async () => {
    const ns = 'mirror';
    await k(['create', 'namespace', ns]);
    await k(['apply', '-f', '-'], configMap(ns, 'web', { annotations: { 'kwatch.dev/mirror-label': 'blue' } }, {}));
    await k(['apply', '-f', '-'], configMap(ns, 'plain', {}, {}));

    const mirror = new ControllerProcess(MIRROR, ['--kubeconfig', kubeconfig, '-n', ns], childEnv({ KUBECONFIG: join(dir, 'missing') }));
    await mirror.waitForLine(`labelled configmap ${ns}/web mirrored=blue`);
    // Its own write comes back as a watch event: the controller sees it in step and writes nothing more.
    const inStep = await mirror.waitForLine(/^in step: configmap mirror\/web has mirrored=blue \(resourceVersion \d+\)$/);
    const web = await getObj('configmap', ns, 'web');
    expect(web.metadata.labels).toEqual({ mirrored: 'blue' });
    expect(mirror.lines[inStep]).toBe(`in step: configmap ${ns}/web has mirrored=blue (resourceVersion ${web.metadata.resourceVersion})`);
    expect((await getObj('configmap', ns, 'plain')).metadata.labels).toBeUndefined();

    let from = mirror.lines.length;
    await k(['annotate', '--overwrite', 'configmap', 'web', '-n', ns, 'kwatch.dev/mirror-label=green']);
    await mirror.waitForLine(`labelled configmap ${ns}/web mirrored=green`, from);
    await mirror.waitForLine(`in step: configmap ${ns}/web has mirrored=green`, from);
    expect(await mirrorOf(ns, 'web')).toBe('green');

    // A value no label may hold (here with a newline) is reported, quoted, and not written.
    from = mirror.lines.length;
    await k(['annotate', '--overwrite', 'configmap', 'web', '-n', ns, 'kwatch.dev/mirror-label=no good\nmirrored=x']);
    await mirror.waitForLine(`skipped configmap ${ns}/web: kwatch.dev/mirror-label="no good\\nmirrored=x" is not a valid label value`, from);
    expect(await mirrorOf(ns, 'web')).toBe('green');

    // The server ends the watch: kubectl exits, the loop lists again, and every object is found in step.
    await k(['annotate', '--overwrite', 'configmap', 'web', '-n', ns, 'kwatch.dev/mirror-label=green']);
    await mirror.waitForLine(`in step: configmap ${ns}/web has mirrored=green`, from);
    const settled = await getObj('configmap', ns, 'web');
    from = mirror.lines.length;
    expect(sim.faults.dropWatches('end')).toBeGreaterThan(0);
    const relisted = await mirror.waitForLine('watch ended: listing again', from);
    await mirror.waitForLine(`in step: configmap ${ns}/web has mirrored=green (resourceVersion ${settled.metadata.resourceVersion})`, relisted);
    expect((await getObj('configmap', ns, 'web')).metadata.resourceVersion).toBe(settled.metadata.resourceVersion);
    expect(mirror.linesMatching(/^labelled /, from)).toEqual([]);

    expect(await mirror.stop()).toEqual({ code: 0, signal: null });
    expect(mirror.lines.at(-1)).toBe('SIGTERM: stopping');
  }, 90_000);

  it('lists again after a pause when a label fails, and leaves a ConfigMap that changed to its next event', async () => {
    const ns = 'mirror-errors';
    await k(['create', 'namespace', ns]);
    const gate = labelGate();
    const mirror = new ControllerProcess(MIRROR, ['-n', ns], childEnv({ KUBECONFIG: kubeconfig, KUBECTL: gate.kubectl }));
    await mirror.waitForLine('listing and watching configmaps (context kwatch-sim)');

    sim.faults.failNext({ code: 500, verb: 'patch', path: `/namespaces/${ns}/configmaps/web` });
    await k(['apply', '-f', '-'], configMap(ns, 'web', { annotations: { 'kwatch.dev/mirror-label': 'blue' } }, {}));
    const failed = await mirror.waitForLine(/^could not label configmap mirror-errors\/web: Error from server \(InternalError\)/);
    await mirror.waitForLine('listing again in 1s', failed);
    await mirror.waitForLine(`labelled configmap ${ns}/web mirrored=blue`, failed);
    expect(await mirrorOf(ns, 'web')).toBe('blue');

    // The label names the resourceVersion it was decided on: a ConfigMap changed in between is not labelled from a
    // stale view (kubectl answers a conflict); the change's own event labels it.
    // The controller's next label is held (its kubectl waits before it runs) until the second change has landed, and
    // released then: no fixed delay to outlast one kubectl replace.
    const from = mirror.lines.length;
    gate.hold();
    const current = await getObj('configmap', ns, 'web');
    const green = { ...current, metadata: { ...current.metadata, annotations: { 'kwatch.dev/mirror-label': 'green' } } };
    await k(['replace', '-f', '-'], JSON.stringify(green));
    const decidedOn = (await getObj('configmap', ns, 'web')).metadata.resourceVersion;
    await until(async () => gate.held(), "the controller's label to be held");
    await k(['replace', '-f', '-'], JSON.stringify({ ...green, metadata: { ...green.metadata, resourceVersion: undefined }, data: { more: '1' } }));
    gate.release();
    await mirror.waitForLine(`skipped configmap ${ns}/web: it changed since resourceVersion ${decidedOn} (its next event decides)`, from);
    await mirror.waitForLine(`labelled configmap ${ns}/web mirrored=green`, from);
    expect(await mirrorOf(ns, 'web')).toBe('green');
    expect(await mirror.stop()).toEqual({ code: 0, signal: null });
  }, 90_000);

  it('says in one line that it has no kubeconfig, and exits 2', async () => {
    const mirror = new ControllerProcess(MIRROR, [], childEnv({ KUBECONFIG: join(dir, 'nowhere') }));
    expect(await mirror.exit()).toEqual({ code: 2, signal: null });
    expect(mirror.lines).toEqual(['label-mirror: no usable kubeconfig (error: current-context is not set): set KUBECONFIG or pass --kubeconfig FILE']);
  });
});

/**
 * `kwatch reconcile --exec --writes overlay --once -o ndjson -- COMMAND` (built CLI) against the test's server, with a
 * short --quiet so the verdict comes soon after the controller's last write: its exit code, records and stderr.
 */
function reconcileExec(command: string[]): Promise<{ code: number; records: Rec[]; stderr: string }> {
  const args = [BIN, 'reconcile', '--exec', '--writes', 'overlay', '--once', '--quiet', '2s', '-o', 'ndjson', '--', ...command];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: childEnv({ KUBECONFIG: kubeconfig }), timeout: 90_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      const records = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);
      resolve({ code, records, stderr });
    });
  });
}

const endpointOps = (records: Rec[], op: string) => records.filter((r) => r.stage === 'endpoint' && r.op === op);

describe('behind kwatch reconcile --exec --writes overlay --once (built CLI)', () => {
  it.skipIf(!pythonClient)('configmap-secret-keeper.py: creates the Secret in the fork only, and converges (exit 0)', async () => {
    const ns = 'exec-keeper';
    await k(['create', 'namespace', ns]);
    await k(['apply', '-f', '-'], configMap(ns, 'app', { labels: { 'kwatch.dev/keep-secret': 'true' } }, { k: 'v' }));
    const res = await reconcileExec([PYTHON, KEEPER, '-n', ns]);
    expect(res.code, res.stderr).toBe(0);
    expect(endpointOps(res.records, 'write').map((r) => [r.key, r.verb, r.mode, r.code])).toEqual([[`${ns}/app-secret`, 'create', 'overlay', 201]]);
    expect(endpointOps(res.records, 'converged').map((r) => [r.key, r.writes])).toEqual([[`${ns}/app-secret`, 1]]);
    // The controller's watch was open from the resourceVersion of its list, and it listed once.
    const list = endpointOps(res.records, 'list').filter((r) => r.key === ns);
    expect(list).toHaveLength(1);
    expect(endpointOps(res.records, 'watch').find((r) => r.key === ns && r.event === 'start')?.rv).toBe(list[0].rv);
    expect(res.stderr).toContain(`python3 | created secret ${ns}/app-secret (1 keys) for configmap ${ns}/app\n`);
    expect(res.stderr).toContain('converged: 1 key written, no write pending');
    // Overlay: the server the controller was pointed at never saw the write.
    expect(await k(['get', 'secrets', '-n', ns, '-o', 'name'])).not.toContain('app-secret');
  }, 120_000);

  it('label-mirror.sh ({kubeconfig} in its arguments): labels the ConfigMap in the fork only, sees its own write, and converges (exit 0)', async () => {
    const ns = 'exec-mirror';
    await k(['create', 'namespace', ns]);
    await k(['apply', '-f', '-'], configMap(ns, 'web', { annotations: { 'kwatch.dev/mirror-label': 'blue' } }, {}));
    const res = await reconcileExec([MIRROR, '--kubeconfig', '{kubeconfig}', '-n', ns]);
    expect(res.code, res.stderr).toBe(0);
    const writes = endpointOps(res.records, 'write');
    expect(writes.map((r) => [r.key, r.verb, r.mode, r.code])).toEqual([[`${ns}/web`, 'patch', 'overlay', 200]]);
    expect(writes[0].diff).toEqual([{ path: 'metadata.labels', new: { mirrored: 'blue' } }]);
    expect(endpointOps(res.records, 'converged').map((r) => [r.key, r.writes])).toEqual([[`${ns}/web`, 1]]);
    // The fork sent the label back on the controller's watch, and the controller found it in step.
    expect(res.stderr).toMatch(new RegExp(`label-mirror\\.sh \\| in step: configmap ${ns}/web has mirrored=blue \\(resourceVersion \\d+\\)\n`));
    expect(res.stderr).toContain('converged: 1 key written, no write pending');
    expect(await mirrorLabel(ns, 'web')).toBeUndefined();
  }, 120_000);
});
