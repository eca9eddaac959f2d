// The triggers in-process: an informer's add/update/delete, handed straight to the handler `for`, `owns` and
// `watches` register, and the reasons that reach the sink (keys, reason texts, own/local marks, priorities,
// tombstones, predicate drops and map errors in the trace).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { DeletedFinalStateUnknown } from '../../src/informer/deltas.js';
import type { ResourceEventHandler } from '../../src/informer/processor-listener.js';
import type { SharedIndexInformer } from '../../src/informer/shared-informer.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import { triggerMapped, triggerOwners, triggerSelf, type TriggerContext, type TriggerReason, type WriteOrigins } from '../../src/reconcile/trigger.js';
import type { CompiledPredicate } from '../../src/reconcile/predicates.js';
import { CONFIGMAPS, DEPLOYMENTS, REPLICASETS } from './helpers.js';

const NOW = 1_700_000_000_000;

function setup(o: { priorities?: boolean; own?: (rv: string | undefined) => boolean; local?: (rv: string | undefined) => boolean; primary?: typeof DEPLOYMENTS } = {}) {
  const clock = new FakeClock(NOW);
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const triggered: { key: string; reason: TriggerReason }[] = [];
  const claimed: unknown[][] = [];
  const origins: WriteOrigins = {
    isOwn: (_c, _r, _k, rv) => o.own?.(rv) ?? false,
    isLocal: (_r, rv) => o.local?.(rv) ?? false,
    claimLater: (...args) => void claimed.push(args.slice(0, 4)),
  };
  const t: TriggerContext = { controller: 'ctl', primary: o.primary ?? DEPLOYMENTS, sink: { trigger: (key, reason) => void triggered.push({ key, reason }) }, clock, tracer, origins, priorities: o.priorities };
  let handler: ResourceEventHandler | undefined;
  const options: unknown[] = [];
  const informer = {
    addEventHandler: (h: ResourceEventHandler, opts: unknown) => {
      handler = h;
      options.push(opts);
      return { name: 'ctl', hasSynced: () => true };
    },
  } as unknown as SharedIndexInformer;
  return { t, informer, triggered, claimed, records, options, handler: () => handler! };
}

const obj = (name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'ns', name, resourceVersion: rv, uid: `uid-${name}`, ...extra } });

describe('triggers', () => {
  it('for: add, update, resync and delete enqueue the object\'s key with kwatch\'s and kube-rs\'s reasons', () => {
    const s = setup();
    triggerSelf(s.informer, DEPLOYMENTS, s.t, 30_000);
    expect(s.options).toEqual([{ name: 'ctl', controller: 'ctl', resyncPeriodMs: 30_000 }]);
    const h = s.handler();
    h.onAdd!(obj('a', '1'), false);
    h.onUpdate!(obj('a', '1'), obj('a', '2'));
    h.onUpdate!(obj('a', '2'), obj('a', '2'));
    h.onDelete!(obj('a', '3'));
    expect(s.triggered.map((x) => [x.key, x.reason.op, x.reason.reason, x.reason.kubeRs, x.reason.resource, x.reason.key, x.reason.rv, x.reason.time])).toEqual([
      ['ns/a', 'OnAdd', 'object updated', 'object updated', 'deployments.apps', 'ns/a', '1', NOW],
      ['ns/a', 'OnUpdate', 'object updated', 'object updated', 'deployments.apps', 'ns/a', '2', NOW],
      ['ns/a', 'OnUpdate', 'resync', 'bulk reconcile requested', 'deployments.apps', 'ns/a', '2', NOW],
      ['ns/a', 'OnDelete', 'object deleted', 'object updated', 'deployments.apps', 'ns/a', '3', NOW],
    ]);
    for (const x of s.triggered) expect(x.reason).not.toHaveProperty('priority');
    for (const x of s.triggered) expect(x.reason).not.toHaveProperty('own');
    for (const x of s.triggered) expect(x.reason).not.toHaveProperty('local');
    for (const x of s.triggered) expect(x.reason).not.toHaveProperty('tombstone');
    // Not known as the controller's own: claimed later by uid and resourceVersion.
    expect(s.claimed[0]).toEqual(['ctl', 'deployments.apps', 'uid-a', '1']);
  });

  it('own and local writes are marked; an own one is not left to be claimed', () => {
    const s = setup({ own: (rv) => rv === '5', local: (rv) => rv === 'local-1' });
    triggerSelf(s.informer, DEPLOYMENTS, s.t);
    s.handler().onUpdate!(obj('a', '4'), obj('a', '5'));
    s.handler().onUpdate!(obj('a', '5'), obj('a', 'local-1'));
    expect(s.triggered[0].reason.own).toBe(true);
    expect(s.triggered[0].reason.local).toBeUndefined();
    expect(s.triggered[1].reason.local).toBe(true);
    expect(s.triggered[1].reason.own).toBeUndefined();
    expect(s.claimed).toEqual([['ctl', 'deployments.apps', 'uid-a', 'local-1']]);
  });

  it('a tombstone (a delete the informer missed) is marked, keyed by its own key, and claimed by the last known object\'s uid', () => {
    const s = setup();
    triggerSelf(s.informer, DEPLOYMENTS, s.t);
    s.handler().onDelete!(new DeletedFinalStateUnknown('ns/a', obj('a', '7')));
    expect(s.triggered).toHaveLength(1);
    expect(s.triggered[0]).toMatchObject({ key: 'ns/a', reason: { tombstone: true, op: 'OnDelete', reason: 'object deleted' } });
    expect(s.claimed[0]).toEqual(['ctl', 'deployments.apps', 'uid-a', '7']);
  });

  it('priorities: an initial-list add of an object older than a minute and a resync are low priority; a new object, an update and a delete are not', () => {
    const s = setup({ priorities: true });
    triggerSelf(s.informer, DEPLOYMENTS, s.t);
    const h = s.handler();
    const created = (ms: number) => new Date(NOW - ms).toISOString();
    h.onAdd!(obj('old', '1', { creationTimestamp: created(61_000) }), true);
    h.onAdd!(obj('minute', '1', { creationTimestamp: created(60_000) }), true);
    h.onAdd!(obj('new', '1', { creationTimestamp: created(1_000) }), true);
    h.onAdd!(obj('undated', '1'), true);
    h.onUpdate!(obj('old', '1'), obj('old', '1'));
    h.onUpdate!(obj('old', '1'), obj('old', '2'));
    h.onDelete!(obj('old', '3', { creationTimestamp: created(61_000) }));
    expect(s.triggered.map((x) => [x.key, x.reason.op, x.reason.priority])).toEqual([
      ['ns/old', 'OnAdd', -100],
      ['ns/minute', 'OnAdd', undefined],
      ['ns/new', 'OnAdd', undefined],
      ['ns/undated', 'OnAdd', undefined],
      ['ns/old', 'OnUpdate', -100],
      ['ns/old', 'OnUpdate', undefined],
      ['ns/old', 'OnDelete', undefined],
    ]);
  });

  it('owns: the controller owner of the primary kind and group is enqueued, in the object\'s namespace; others only with allOwners', () => {
    const s = setup();
    triggerOwners(s.informer, REPLICASETS, s.t, false);
    const ref = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: `u-${name}`, controller: true, ...extra });
    const rs = (refs: unknown[]) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { namespace: 'ns', name: 'rs', resourceVersion: '1', ownerReferences: refs } }) as unknown as KubeObject;
    s.handler().onAdd!(rs([ref('a'), ref('b', { controller: false }), ref('c', { kind: 'StatefulSet' }), ref('d', { apiVersion: 'extensions/v1beta1' }), ref('e', { apiVersion: 'v1' })]), false);
    expect(s.triggered.map((x) => [x.key, x.reason.reason, x.reason.kubeRs, x.reason.key])).toEqual([['ns/a', 'related object updated', 'related object updated', 'ns/rs']]);
    s.handler().onDelete!(rs([ref('a')]));
    expect(s.triggered[1].reason.reason).toBe('related object deleted');
    // No owner: nothing, and nothing is left to be claimed.
    const claims = s.claimed.length;
    s.handler().onAdd!(rs([]), false);
    s.handler().onAdd!({ metadata: { namespace: 'ns', name: 'bare' } } as KubeObject, false);
    expect(s.triggered).toHaveLength(2);
    expect(s.claimed).toHaveLength(claims);

    const all = setup();
    triggerOwners(all.informer, REPLICASETS, all.t, true);
    all.handler().onAdd!(rs([ref('a'), ref('b', { controller: false }), ref('c', { kind: 'StatefulSet' })]), false);
    expect(all.triggered.map((x) => x.key)).toEqual(['ns/a', 'ns/b']);
    // A cluster-scoped primary: the owner's key has no namespace; a tombstone's owners still run.
    const cluster = setup({ primary: { ...DEPLOYMENTS, namespaced: false } });
    triggerOwners(cluster.informer, REPLICASETS, cluster.t, false);
    cluster.handler().onDelete!(new DeletedFinalStateUnknown('ns/rs', rs([ref('a')])));
    expect(cluster.triggered.map((x) => [x.key, x.reason.tombstone])).toEqual([['a', true]]);
  });

  it('watches: the mapped keys (one, a list, none), the object\'s namespace by default, both old and new on update, one trigger per key', () => {
    const s = setup();
    const map = (o: KubeObject) => {
      const n = o.metadata.name!;
      if (n === 'none') return null;
      if (n === 'one') return { name: 'target' };
      if (n === 'throws') throw new Error('bad map');
      if (n === 'odd') return [{ name: 'x' }, null, { name: 3 }, { namespace: 'other', name: 'y' }] as never;
      return [{ name: n }, { name: 'shared' }];
    };
    triggerMapped(s.informer, CONFIGMAPS, s.t, map);
    const cm = (name: string, rv = '1') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: rv } }) as KubeObject;
    s.handler().onAdd!(cm('one'), false);
    s.handler().onAdd!(cm('none'), false);
    s.handler().onAdd!(cm('odd'), false);
    s.handler().onUpdate!(cm('p'), cm('q', '2'));
    expect(s.triggered.map((x) => x.key)).toEqual(['ns/target', 'ns/x', 'other/y', 'ns/q', 'ns/shared', 'ns/p']);
    expect(s.triggered.at(-1)!.reason).toMatchObject({ reason: 'related object updated', key: 'ns/q', rv: '2' });
    s.handler().onDelete!(cm('one'));
    expect(s.triggered.at(-1)!.reason.reason).toBe('related object deleted');
    // A map that throws enqueues nothing and is traced.
    s.handler().onAdd!(cm('throws'), false);
    expect(s.triggered).toHaveLength(7);
    expect(s.records.filter((r) => r.op === 'map-error')).toMatchObject([{ stage: 'reconcile', key: 'ns/throws', controller: 'ctl', resource: 'configmaps', error: 'bad map', time: NOW }]);
  });

  it('predicates: a drop is traced with the predicate\'s name, a throwing predicate drops and is traced, a tombstone without an object passes', () => {
    const s = setup();
    const seen: unknown[] = [];
    const onlyB: CompiledPredicate = { name: 'onlyB', test: (e) => (seen.push(e), e.object.metadata.name === 'b') } as CompiledPredicate;
    triggerSelf(s.informer, DEPLOYMENTS, s.t, undefined, [onlyB]);
    s.handler().onAdd!(obj('a', '1'), false);
    s.handler().onUpdate!(obj('b', '1'), obj('b', '2'));
    s.handler().onDelete!(obj('b', '3'));
    expect(s.triggered.map((x) => x.key)).toEqual(['ns/b', 'ns/b']);
    expect(seen).toMatchObject([{ type: 'create' }, { type: 'update', oldObject: { metadata: { resourceVersion: '1' } } }, { type: 'delete' }]);
    expect(seen[0]).not.toHaveProperty('oldObject');
    expect(s.records.filter((r) => r.op === 'filtered')).toMatchObject([{ stage: 'reconcile', key: 'ns/a', rv: '1', controller: 'ctl', resource: 'deployments.apps', event: 'OnAdd', predicate: 'onlyB', time: NOW }]);
    s.handler().onDelete!(new DeletedFinalStateUnknown('ns/gone', undefined));
    expect(s.triggered.map((x) => x.key)).toEqual(['ns/b', 'ns/b', 'ns/gone']);

    const t = setup();
    const boom: CompiledPredicate = { name: 'boom', test: () => { throw new Error('predicate failed'); } } as CompiledPredicate;
    triggerSelf(t.informer, DEPLOYMENTS, t.t, undefined, [boom]);
    t.handler().onAdd!(obj('a', '1'), false);
    expect(t.triggered).toEqual([]);
    expect(t.records.filter((r) => r.op === 'predicate-error')).toMatchObject([{ key: 'ns/a', error: 'predicate failed', event: 'OnAdd' }]);
  });
});
