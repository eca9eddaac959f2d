import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/informer/types.js';
import { controllerShape } from '../../src/reconcile/controller-shape.js';
import { compilePredicates, firstRejecting } from '../../src/reconcile/predicates.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog, REPLICASETS, deployment, eventually, startSession } from './helpers.js';

describe('predicates', () => {
  it('GenerationChanged on the primary: a status-only update is a filtered record naming it; a new generation runs', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const d = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web', { metadata: { namespace: 'default', name: 'web', generation: 1 } }));
    const seen: string[] = [];
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', predicates: ['GenerationChanged'], reconcile: (req) => void seen.push(req.reasons.map((r) => r.rv).join()) } }] });
    await eventually(() => seen.length === 1 && h.session.isIdle(), 'the initial run');
    const status = catalog.lw(DEPLOYMENTS).apply({ ...d, status: { readyReplicas: 1 } });
    const spec = catalog.lw(DEPLOYMENTS).apply({ ...status, metadata: { ...status.metadata, generation: 2 }, spec: { replicas: 2 } });
    await eventually(() => seen.length === 2 && h.session.isIdle(), 'the spec run');
    expect(seen[1]).toBe(spec.metadata.resourceVersion);
    expect(h.records.filter((r) => r.op === 'filtered')).toEqual([expect.objectContaining({ key: 'default/web', rv: status.metadata.resourceVersion, controller: 'c', resource: 'deployments.apps', event: 'OnUpdate', predicate: 'GenerationChangedPredicate' })]);
    await h.stop();
  });

  it('owns and watches entries take their own predicates: a named function, LabelChanged; all must pass', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, REPLICASETS, CONFIGMAPS]);
    const d = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid!, controller: true };
    const rs = catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'web-1', ownerReferences: [owner] }, status: { readyReplicas: 0 } });
    const cm = catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name: 'cfg', labels: { a: '1' } }, data: { x: '1' } });
    const seen: string[] = [];
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      owns: [{ resource: 'replicasets.apps', predicates: ['ResourceVersionChanged', function readyChanged(e) { return (e.object.status as { readyReplicas?: number })?.readyReplicas !== (e.oldObject?.status as { readyReplicas?: number } | undefined)?.readyReplicas; }] }],
      watches: [{ resource: 'configmaps', predicates: ['LabelChanged'], map: () => [{ namespace: 'default', name: 'web' }] }],
      reconcile: (req) => void seen.push(req.reasons.map((r) => `${r.resource}@${r.rv}`).join()),
    };
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition }] });
    await eventually(() => seen.length >= 1 && h.session.isIdle() && h.session.factory.hasSynced(), 'the initial runs');
    seen.length = 0;
    const rsSame = catalog.lw(REPLICASETS).apply({ ...rs, metadata: { ...rs.metadata, annotations: { x: 'y' } } });
    const cmData = catalog.lw(CONFIGMAPS).apply({ ...cm, data: { x: '2' } });
    const rsReady = catalog.lw(REPLICASETS).apply({ ...rsSame, status: { readyReplicas: 1 } });
    const cmLabel = catalog.lw(CONFIGMAPS).apply({ ...cmData, metadata: { ...cmData.metadata, labels: { a: '2' } } });
    await eventually(() => seen.join().split(',').length >= 2 && h.session.isIdle(), 'the runs that pass');
    expect(seen.join().split(',').sort()).toEqual([`configmaps@${cmLabel.metadata.resourceVersion}`, `replicasets.apps@${rsReady.metadata.resourceVersion}`].sort());
    const filtered = h.records.filter((r) => r.op === 'filtered').map((r) => [r.resource, r.rv, r.predicate]);
    expect(filtered).toEqual(expect.arrayContaining([
      ['replicasets.apps', rsSame.metadata.resourceVersion, 'readyChanged'],
      ['configmaps', cmData.metadata.resourceVersion, 'LabelChangedPredicate'],
    ]));
    await h.stop();
  });

  it('a looping status writer stops looping under GenerationChanged (its own status writes are filtered)', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web', { metadata: { namespace: 'default', name: 'web', generation: 1 } }));
    let n = 0;
    const stamper = (predicates?: ControllerDefinition['predicates']): ControllerDefinition => ({
      for: 'deployments.apps',
      predicates,
      async reconcile(req, ctx) {
        const d = (await ctx.get('deployments.apps', req)) as KubeObject;
        if (n < 20) await ctx.updateStatus({ ...d, status: { round: ++n } });
      },
    });
    const h = await startSession({ catalog, mode: 'overlay', loopThreshold: 3, controllers: [{ name: 's', definition: stamper(['GenerationChanged']) }] });
    await eventually(() => n === 1 && h.session.isIdle(), 'one run');
    expect(h.records.filter((r) => r.op === 'filtered')).toHaveLength(1);
    expect(h.session.loops.findings).toEqual([]);
    await h.stop();
  });

  it('a predicate that is neither a function nor a built-in name is one line naming it', () => {
    const where = { display: 'c.mjs', file: '/c.mjs', defaultName: 'c' };
    expect(() => controllerShape({ default: { for: 'deployments.apps', predicates: ['GenerationChange'], reconcile() {} } }, where)).toThrow(
      "c.mjs: predicates[0] must be a function (event) => boolean or one of 'GenerationChanged', 'ResourceVersionChanged', 'LabelChanged', 'AnnotationChanged', got the string \"GenerationChange\"",
    );
    expect(() => controllerShape({ default: { for: 'deployments.apps', owns: [{ resource: 'replicasets.apps', predicates: 'LabelChanged' }], reconcile() {} } }, where)).toThrow(/owns\[0\]\.predicates must be an array/);
  });

  describe('the built-ins filter updates only', () => {
    const cm = (rv: string, labels?: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({ metadata: { namespace: 'default', name: 'cfg', resourceVersion: rv, labels, annotations } });
    const verdict = (name: 'AnnotationChanged' | 'ResourceVersionChanged', e: Parameters<typeof firstRejecting>[1]) => firstRejecting(compilePredicates([name]), e)?.name ?? 'runs';
    const base = cm('5', { app: 'a' }, { note: 'x' });

    it('AnnotationChanged: an annotation-only update runs, a label-only update is filtered, a create and a delete pass', () => {
      expect(verdict('AnnotationChanged', { type: 'update', oldObject: base, object: cm('6', { app: 'a' }, { note: 'y' }) })).toBe('runs');
      expect(verdict('AnnotationChanged', { type: 'update', oldObject: base, object: cm('6', { app: 'a' }, { note: 'x', more: 'z' }) })).toBe('runs');
      expect(verdict('AnnotationChanged', { type: 'update', oldObject: base, object: cm('6', { app: 'a' }) })).toBe('runs');
      expect(verdict('AnnotationChanged', { type: 'update', oldObject: base, object: cm('6', { app: 'b' }, { note: 'x' }) })).toBe('AnnotationChangedPredicate');
      expect(verdict('AnnotationChanged', { type: 'update', oldObject: base, object: cm('6', { app: 'a' }, { note: 'x' }) })).toBe('AnnotationChangedPredicate');
      expect(verdict('AnnotationChanged', { type: 'create', object: base })).toBe('runs');
      expect(verdict('AnnotationChanged', { type: 'delete', object: base })).toBe('runs');
    });

    // Mutation testing (issue 39): each case below failed to be caught before.
    it('LabelChanged sees one changed value among several labels; a delete carrying its old object still passes', () => {
      const two = (b: string) => cm('6', { app: 'a', tier: b });
      expect(firstRejecting(compilePredicates(['LabelChanged']), { type: 'update', oldObject: two('x'), object: two('y') })).toBeUndefined();
      expect(firstRejecting(compilePredicates(['LabelChanged']), { type: 'update', oldObject: two('x'), object: two('x') })?.name).toBe('LabelChangedPredicate');
      expect(verdict('AnnotationChanged', { type: 'delete', oldObject: base, object: base })).toBe('runs');
      expect(verdict('ResourceVersionChanged', { type: 'create', oldObject: base, object: base })).toBe('runs');
    });

    it('no predicates is none; a function without a name is named by its place', () => {
      expect(compilePredicates(undefined)).toEqual([]);
      const anonymous = [(() => true) as (e: unknown) => boolean][0];
      const [, second] = compilePredicates(['GenerationChanged', anonymous]);
      expect(second.name).toBe('predicates[1]');
    });

    it('ResourceVersionChanged: an update at a new resourceVersion runs, one at the same (a resync) is filtered, a create passes', () => {
      expect(verdict('ResourceVersionChanged', { type: 'update', oldObject: base, object: cm('6', { app: 'a' }, { note: 'x' }) })).toBe('runs');
      expect(verdict('ResourceVersionChanged', { type: 'update', oldObject: base, object: cm('5', { app: 'b' }, { note: 'y' }) })).toBe('ResourceVersionChangedPredicate');
      expect(verdict('ResourceVersionChanged', { type: 'create', object: base })).toBe('runs');
      expect(verdict('ResourceVersionChanged', { type: 'delete', object: base })).toBe('runs');
    });
  });

  it('AnnotationChanged in a session: an annotation-only update runs, a label-only update is a filtered record', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    const cm = catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name: 'cfg', labels: { a: '1' }, annotations: { n: '1' } }, data: { x: '1' } });
    const seen: string[] = [];
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'configmaps', predicates: ['AnnotationChanged'], reconcile: (req) => void seen.push(req.reasons.map((r) => r.rv).join()) } }] });
    await eventually(() => seen.length === 1 && h.session.isIdle(), 'the initial run (a create passes)');
    const label = catalog.lw(CONFIGMAPS).apply({ ...cm, metadata: { ...cm.metadata, labels: { a: '2' } } });
    const note = catalog.lw(CONFIGMAPS).apply({ ...label, metadata: { ...label.metadata, annotations: { n: '2' } } });
    await eventually(() => seen.length === 2 && h.session.isIdle(), 'the annotation run');
    expect(seen[1]).toBe(note.metadata.resourceVersion);
    expect(h.records.filter((r) => r.op === 'filtered').map((r) => [r.rv, r.predicate])).toEqual([[label.metadata.resourceVersion, 'AnnotationChangedPredicate']]);
    await h.stop();
  });
});
