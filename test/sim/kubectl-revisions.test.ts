// Conformance: real kubectl (v1.32) reads and rolls back StatefulSet and DaemonSet history on the sim — the
// ControllerRevisions the controllers write (numbers, hash labels, $patch: replace data), rollout history, undo to the
// previous or a given revision (the pods then run the old template again), history limits and garbage collection.
import { describe, expect, it } from 'vitest';
import { PODS, kubectlSim, until } from './sim-helpers.js';

// Two nodes (no pods of their own); 30 s of grace take 30 ms, pods start after 20 ms. No test here is about the grace
// period or the start: a StatefulSet rolls one pod at a time, so each rollout waits out two graces and two starts, and
// the file makes eighteen. Every wait is for a state (rollout status, the store), so short timers race nothing.
const fx = kubectlSim({ nodes: 2, pods: 0, churn: 0, controllers: { graceScale: 0.001, podStartMs: 20 } }, 'kwatch-revisions-');
const kubectl = fx.kubectl;
const CONTROLLER_REVISIONS = { group: 'apps', version: 'v1', resource: 'controllerrevisions' };

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/));

function statefulSet(name: string, image: string, extra: string[] = []): string {
  return fx.file(`${name}.yaml`, [
    'apiVersion: apps/v1', 'kind: StatefulSet', `metadata: {name: ${name}}`, 'spec:', '  replicas: 2', ...extra.map((l) => `  ${l}`),
    `  selector: {matchLabels: {app: ${name}}}`, `  serviceName: ${name}`, '  template:', `    metadata: {labels: {app: ${name}}}`,
    `    spec: {containers: [{name: main, image: "${image}"}]}`,
  ].join('\n'));
}

function daemonSet(name: string, image: string, extra: string[] = []): string {
  return fx.file(`${name}.yaml`, [
    'apiVersion: apps/v1', 'kind: DaemonSet', `metadata: {name: ${name}}`, 'spec:', ...extra.map((l) => `  ${l}`),
    `  selector: {matchLabels: {app: ${name}}}`, '  template:', `    metadata: {labels: {app: ${name}}}`,
    `    spec: {containers: [{name: main, image: "${image}"}]}`,
  ].join('\n'));
}

/** `kubectl get controllerrevisions -l app=NAME` as [name, controller, revision] rows, oldest revision first. */
async function revisions(app: string): Promise<string[][]> {
  const r = await kubectl('get', 'controllerrevisions', '-l', `app=${app}`, '--no-headers');
  return rows(r.stdout).map((x) => x.slice(0, 3)).sort((a, b) => Number(a[2]) - Number(b[2]));
}

/** [pod, image, controller-revision-hash] of the app's pods that are not terminating, by name. */
async function podImages(app: string): Promise<string[][]> {
  const r = await kubectl('get', 'pods', '-l', `app=${app}`, '-o',
    'jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image} {.metadata.labels.controller-revision-hash} {.metadata.deletionTimestamp}{"\\n"}{end}');
  return rows(r.stdout).filter((x) => x.length === 3).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/**
 * The waits below read the sim's store in process (a kubectl per 10 ms poll cost more than the rollouts it waited on);
 * what a test asserts once the wait is over is still read with kubectl.
 */
function storedPodImages(app: string): string[][] {
  return fx.sim.api.list(PODS, 'default')
    .filter((p) => p.metadata.labels?.app === app && !p.metadata.deletionTimestamp)
    .map((p) => [p.metadata.name!, (p.spec as { containers: { image: string }[] }).containers[0].image, p.metadata.labels!['controller-revision-hash']])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

function storedRevisionCount(app: string): number {
  return fx.sim.api.list(CONTROLLER_REVISIONS, 'default').filter((r) => r.metadata.labels?.app === app).length;
}

async function rolledOut(kind: string, name: string): Promise<void> {
  const s = await kubectl('rollout', 'status', `${kind}/${name}`, '--timeout=30s');
  expect(s.code, s.stderr).toBe(0);
}

/**
 * What `kubectl rollout status` waits for (kubectl's rollout_status.go: the generation observed, every replica ready
 * and, for a StatefulSet, the update revision current; for a DaemonSet every scheduled pod updated and available),
 * read from the store: for the rollouts in between, where `rolledOut` judges the same command on the first and last.
 */
async function storedRolledOut(kind: 'statefulset' | 'daemonset', name: string): Promise<void> {
  const ref = { group: 'apps', version: 'v1', resource: kind === 'statefulset' ? 'statefulsets' : 'daemonsets' };
  await until(() => {
    const set = fx.sim.api.get(ref, 'default', name);
    const s = (set?.status ?? {}) as Record<string, any>;
    if (set === undefined || (s.observedGeneration ?? 0) < (set.metadata.generation ?? 0)) return false;
    if (kind === 'daemonset') return (s.updatedNumberScheduled ?? 0) === s.desiredNumberScheduled && (s.numberAvailable ?? 0) === s.desiredNumberScheduled;
    return (s.readyReplicas ?? 0) === (set.spec as { replicas: number }).replicas && s.updateRevision === s.currentRevision;
  }, 30_000);
}

// Each test works on its own objects (by name and app label); they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('ControllerRevisions against the sim', { timeout: 60_000 }, () => {
  it('are served: created, listed with CONTROLLER and REVISION columns, data required and immutable', async () => {
    const file = fx.file('rev.yaml', 'apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r1}\ndata: {spec: {template: {"$patch": replace}}}\nrevision: 1\n');
    expect((await kubectl('create', '-f', file)).stdout.trim()).toBe('controllerrevision.apps/r1 created');
    const g = rows((await kubectl('get', 'controllerrevisions', 'r1')).stdout);
    expect(g[0]).toEqual(['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
    expect(g[1].slice(0, 3)).toEqual(['r1', '<none>', '1']);
    const patch = await kubectl('patch', 'controllerrevision', 'r1', '--type=merge', '-p', '{"data":{"x":1}}');
    expect(patch.code).not.toBe(0);
    expect(patch.stderr).toContain('data: Invalid value');
    expect(patch.stderr).toContain('field is immutable');
    const bad = await kubectl('create', '-f', fx.file('bad.yaml', 'apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r2}\nrevision: -1\n'));
    expect(bad.stderr).toContain('data: Required value: data is mandatory');
    expect(bad.stderr).toContain('revision: Invalid value: -1: must be greater than or equal to 0');
    expect((await kubectl('explain', 'controllerrevision.revision')).stdout).toContain('FIELD: revision <integer>');
    await kubectl('delete', 'controllerrevision', 'r1');
  });

  it('statefulset: a revision per template, rollout history, undo rolls the pods back to the old template', async () => {
    expect((await kubectl('create', '-f', statefulSet('web', 'nginx:1.25'))).code).toBe(0);
    await rolledOut('statefulset', 'web');
    expect((await kubectl('set', 'image', 'statefulset/web', 'main=nginx:1.26')).code).toBe(0);
    await rolledOut('statefulset', 'web');
    const [first, second] = await revisions('web');
    expect(first.slice(1)).toEqual(['statefulset.apps/web', '1']);
    expect(second.slice(1)).toEqual(['statefulset.apps/web', '2']);
    expect(first[0]).toMatch(/^web-[a-z0-9]+$/);
    // The pods carry the revision's name; status names it as both current and update revision.
    expect(await podImages('web')).toEqual([['web-0', 'nginx:1.26', second[0]], ['web-1', 'nginx:1.26', second[0]]]);
    // The set and its first revision from one kubectl run.
    const [set, firstRevision] = JSON.parse((await kubectl('get', 'sts/web', `controllerrevision/${first[0]}`, '-o', 'json')).stdout).items;
    const status = set.status;
    expect([status.currentRevision, status.updateRevision, status.observedGeneration]).toEqual([second[0], second[0], 2]);
    // The stored data is kube's patch: spec.template with $patch: replace.
    const data = firstRevision.data;
    expect(data.spec.template.$patch).toBe('replace');
    expect(data.spec.template.spec.containers[0].image).toBe('nginx:1.25');
    expect(firstRevision.metadata.ownerReferences[0].controller).toBe(true);

    const history = await kubectl('rollout', 'history', 'statefulset/web');
    expect(rows(history.stdout)).toEqual([['statefulset.apps/web'], ['REVISION', 'CHANGE-CAUSE'], ['1', '<none>'], ['2', '<none>']]);
    const one = await kubectl('rollout', 'history', 'statefulset/web', '--revision=1');
    expect(one.stdout).toContain('statefulset.apps/web with revision #1');
    expect(one.stdout).toMatch(/Image:\s+nginx:1\.25/);

    expect((await kubectl('rollout', 'undo', 'statefulset/web')).stdout.trim()).toBe('statefulset.apps/web rolled back');
    await rolledOut('statefulset', 'web');
    await until(() => storedPodImages('web').every((p) => p[1] === 'nginx:1.25'), 15_000);
    const undone = await podImages('web');
    expect(undone.every((p) => p[1] === 'nginx:1.25')).toBe(true);
    // The old revision is reused under the next number, its pods labelled with it again.
    expect(await revisions('web')).toEqual([second, [first[0], 'statefulset.apps/web', '3']]);
    expect(undone.map((p) => p[2])).toEqual([first[0], first[0]]);
    expect(rows((await kubectl('rollout', 'history', 'statefulset/web')).stdout).slice(2)).toEqual([['2', '<none>'], ['3', '<none>']]);

    const same = await kubectl('rollout', 'undo', 'statefulset/web', '--to-revision=3');
    expect(same.stdout.trim()).toBe('statefulset.apps/web skipped rollback (current template already matches revision 3)');
    const missing = await kubectl('rollout', 'undo', 'statefulset/web', '--to-revision=9');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim()).toBe('error: unable to find specified revision 9 in history');

    expect((await kubectl('rollout', 'undo', 'statefulset/web', '--to-revision=2')).stdout.trim()).toBe('statefulset.apps/web rolled back');
    await rolledOut('statefulset', 'web');
    await until(() => storedPodImages('web').every((p) => p[1] === 'nginx:1.26' && p[2] === second[0]), 15_000);
    expect((await podImages('web')).every((p) => p[1] === 'nginx:1.26' && p[2] === second[0])).toBe(true);
    expect((await revisions('web')).map((r) => [r[0], r[2]])).toEqual([[first[0], '3'], [second[0], '4']]);
    expect(fx.sim.controllers!.errors).toBe(0);
  });

  it('statefulset: below the partition a recreated pod gets the current revision, above it the update revision', async () => {
    expect((await kubectl('create', '-f', statefulSet('part', 'nginx:1.25', ['updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 1}}']))).code).toBe(0);
    await rolledOut('statefulset', 'part');
    expect((await kubectl('set', 'image', 'statefulset/part', 'main=nginx:1.26')).code).toBe(0);
    await until(() => storedPodImages('part').map((p) => p[1]).join() === 'nginx:1.25,nginx:1.26', 15_000);
    const split = await podImages('part');
    expect(split.map((p) => p[1])).toEqual(['nginx:1.25', 'nginx:1.26']);
    const [current, update] = (await revisions('part')).map((r) => r[0]);
    expect(split.map((p) => p[2])).toEqual([current, update]);
    // part-0 deleted: it comes back from the current revision, not the template.
    const uid = (await kubectl('get', 'pod', 'part-0', '-o', 'jsonpath={.metadata.uid}')).stdout;
    await kubectl('delete', 'pod', 'part-0', '--wait=false');
    await until(() => {
      const p = fx.sim.api.get(PODS, 'default', 'part-0');
      return p !== undefined && p.metadata.uid !== uid && (p.status as { phase?: string } | undefined)?.phase === 'Running';
    }, 15_000);
    const back = await kubectl('get', 'pod', 'part-0', '-o', 'jsonpath={.metadata.uid} {.status.phase}');
    expect(back.code).toBe(0);
    expect(back.stdout.startsWith(uid)).toBe(false);
    expect(back.stdout).toMatch(/ Running$/);
    expect((await podImages('part'))[0]).toEqual(['part-0', 'nginx:1.25', current]);
    const status = JSON.parse((await kubectl('get', 'sts', 'part', '-o', 'jsonpath={.status}')).stdout);
    expect([status.currentRevision, status.updateRevision, status.currentReplicas, status.updatedReplicas]).toEqual([current, update, 1, 1]);
  });

  it('statefulset: unused revisions beyond revisionHistoryLimit are deleted, and all go with the set', async () => {
    expect((await kubectl('create', '-f', statefulSet('lim', 'nginx:1.20', ['revisionHistoryLimit: 1']))).code).toBe(0);
    await rolledOut('statefulset', 'lim');
    for (const tag of ['1.21', '1.22', '1.23']) {
      expect((await kubectl('set', 'image', 'statefulset/lim', `main=nginx:${tag}`)).code).toBe(0);
      if (tag === '1.23') await rolledOut('statefulset', 'lim');
      else await storedRolledOut('statefulset', 'lim');
    }
    // Revision 4 is live (the pods run it); one more is kept as history.
    await until(() => storedRevisionCount('lim') === 2, 10_000);
    expect((await revisions('lim')).map((r) => r[2])).toEqual(['3', '4']);
    expect((await kubectl('delete', 'statefulset', 'lim')).code).toBe(0);
    await until(() => storedRevisionCount('lim') === 0, 10_000);
    expect(await revisions('lim')).toEqual([]);
  });

  it('daemonset: rollout history --revision, undo --to-revision rolls the pods back, status counts the updated pods', async () => {
    expect((await kubectl('create', '-f', daemonSet('agent', 'busybox:1.36'))).code).toBe(0);
    await rolledOut('daemonset', 'agent');
    expect((await kubectl('set', 'image', 'daemonset/agent', 'main=busybox:1.37')).code).toBe(0);
    await rolledOut('daemonset', 'agent');
    const [first, second] = await revisions('agent');
    expect([first.slice(1), second.slice(1)]).toEqual([['daemonset.apps/agent', '1'], ['daemonset.apps/agent', '2']]);
    // A daemon pod's hash label is the revision's hash (its name without "<set>-").
    const hash = second[0].slice('agent-'.length);
    expect((await kubectl('get', 'controllerrevision', second[0], '-o', 'jsonpath={.metadata.labels.controller-revision-hash}')).stdout).toBe(hash);
    expect((await podImages('agent')).map((p) => [p[1], p[2]])).toEqual([['busybox:1.37', hash], ['busybox:1.37', hash]]);
    const history = await kubectl('rollout', 'history', 'daemonset/agent');
    expect(rows(history.stdout)).toEqual([['daemonset.apps/agent'], ['REVISION', 'CHANGE-CAUSE'], ['1', '<none>'], ['2', '<none>']]);
    const two = await kubectl('rollout', 'history', 'daemonset/agent', '--revision=2');
    expect(two.stdout).toContain('daemonset.apps/agent with revision #2');
    expect(two.stdout).toMatch(/Image:\s+busybox:1\.37/);

    expect((await kubectl('rollout', 'undo', 'daemonset/agent', '--to-revision=1')).stdout.trim()).toBe('daemonset.apps/agent rolled back');
    await rolledOut('daemonset', 'agent');
    const oldHash = first[0].slice('agent-'.length);
    const rolledBack = (p: string[][]) => p.length === 2 && p.every((x) => x[1] === 'busybox:1.36' && x[2] === oldHash);
    await until(() => rolledBack(storedPodImages('agent')), 15_000);
    expect(rolledBack(await podImages('agent'))).toBe(true);
    expect(await revisions('agent')).toEqual([second, [first[0], 'daemonset.apps/agent', '3']]);
    const status = JSON.parse((await kubectl('get', 'ds', 'agent', '-o', 'jsonpath={.status}')).stdout);
    expect([status.updatedNumberScheduled, status.observedGeneration]).toEqual([2, 3]);
    const same = await kubectl('rollout', 'undo', 'daemonset/agent');
    expect(same.stdout.trim()).toBe('daemonset.apps/agent rolled back');
    await rolledOut('daemonset', 'agent');
    await until(() => storedPodImages('agent').every((x) => x[1] === 'busybox:1.37'), 15_000);
    expect((await podImages('agent')).every((x) => x[1] === 'busybox:1.37')).toBe(true);
    expect(fx.sim.controllers!.errors).toBe(0);
  });

  it('daemonset: unused revisions beyond revisionHistoryLimit are deleted, and all go with the set', async () => {
    expect((await kubectl('create', '-f', daemonSet('lim-ds', 'busybox:1.30', ['revisionHistoryLimit: 1']))).code).toBe(0);
    await rolledOut('daemonset', 'lim-ds');
    for (const tag of ['1.31', '1.32', '1.33']) {
      expect((await kubectl('set', 'image', 'daemonset/lim-ds', `main=busybox:${tag}`)).code).toBe(0);
      if (tag === '1.33') await rolledOut('daemonset', 'lim-ds');
      else await storedRolledOut('daemonset', 'lim-ds');
    }
    await until(() => storedRevisionCount('lim-ds') === 2, 10_000);
    expect((await revisions('lim-ds')).map((r) => r[2])).toEqual(['3', '4']);
    expect((await kubectl('delete', 'daemonset', 'lim-ds')).code).toBe(0);
    await until(() => storedRevisionCount('lim-ds') === 0, 10_000);
    expect(await revisions('lim-ds')).toEqual([]);
  });
});
