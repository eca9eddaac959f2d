import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown } from '../../src/informer/deltas.js';
import { labelIndexFunc, nodeNameIndexFunc } from '../../src/informer/index-funcs.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer } from '../../src/informer/trace.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (ns: string, name: string, node: string, rv = '1', labels?: Record<string, string>): KubeObject => ({
  kind: 'Pod',
  metadata: { namespace: ns, name, resourceVersion: rv, labels },
  spec: { nodeName: node },
});
const multi = (obj: KubeObject) => (obj.metadata.labels?.tags ?? '').split(',').filter(Boolean);

describe('Indexer', () => {
  it('indexes by namespace out of the box and moves keys between index values on update', () => {
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc } });
    ix.add(pod('a', 'p1', 'n1'));
    ix.add(pod('a', 'p2', 'n1'));
    ix.add(pod('b', 'p3', 'n2'));
    expect(ix.indexKeys('namespace', 'a')).toEqual(['a/p1', 'a/p2']);
    expect(ix.indexKeys('node', 'n1')).toEqual(['a/p1', 'a/p2']);
    ix.update(pod('a', 'p2', 'n2', '2'));
    expect(ix.indexKeys('node', 'n1')).toEqual(['a/p1']);
    expect(ix.indexKeys('node', 'n2')).toEqual(['a/p2', 'b/p3']);
    expect(ix.byIndex('node', 'n2').map((o) => o.metadata.resourceVersion).sort()).toEqual(['1', '2']);
  });

  it('an update that keeps an object\'s index values hands out the new object from byIndex and index, not the old one', () => {
    // client-go's Index/ByIndex look keys up in the items map, so they always return the stored (newest) object.
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc } });
    ix.add(pod('a', 'p1', 'n1', '1'));
    ix.update(pod('a', 'p1', 'n1', '2'));
    expect(ix.byIndex('node', 'n1').map((o) => o.metadata.resourceVersion)).toEqual(['2']);
    expect(ix.byIndex('namespace', 'a').map((o) => o.metadata.resourceVersion)).toEqual(['2']);
    expect(ix.index('node', pod('x', 'q', 'n1')).map((o) => o.metadata.resourceVersion)).toEqual(['2']);
    expect(ix.index('namespace', pod('a', 'q', 'n9')).map((o) => o.metadata.resourceVersion)).toEqual(['2']);
  });

  it('deleting an unknown key records nothing; getIndexers hands out a copy; noNamespaceIndex leaves the namespace index out', () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const ix = new Indexer({ tracer });
    ix.delete(pod('a', 'ghost', 'n1'));
    expect(recs).toEqual([]);
    const indexers = ix.getIndexers();
    delete indexers.namespace;
    expect(Object.keys(ix.getIndexers())).toEqual(['namespace']);
    const bare = new Indexer({ noNamespaceIndex: true });
    expect(Object.keys(bare.getIndexers())).toEqual([]);
    expect(() => bare.byIndex('namespace', 'a')).toThrow('Index with name namespace does not exist');
  });

  it('removes an index value once its last key leaves, so no stale values are listed', () => {
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc } });
    ix.add(pod('a', 'p1', 'n1'));
    ix.update(pod('a', 'p1', 'n2', '2'));
    expect(ix.listIndexFuncValues('node')).toEqual(['n2']);
    ix.delete(pod('a', 'p1', 'n2'));
    expect(ix.listIndexFuncValues('node')).toEqual([]);
    expect(ix.listIndexFuncValues('namespace')).toEqual([]);
    expect(ix.size).toBe(0);
  });

  it('deletes by tombstone key using the stored object, and ignores unknown keys', () => {
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc } });
    ix.add(pod('a', 'p1', 'n1'));
    ix.delete(new DeletedFinalStateUnknown('a/nope', undefined));
    ix.delete(new DeletedFinalStateUnknown('a/p1', undefined));
    expect(ix.getByKey('a/p1')).toBeUndefined();
    expect(ix.listIndexFuncValues('node')).toEqual([]);
  });

  it('keeps multi-valued indices exact across updates', () => {
    const ix = new Indexer({ indexers: { tags: multi } });
    ix.add(pod('a', 'p', 'n', '1', { tags: 'x,y' }));
    ix.update(pod('a', 'p', 'n', '2', { tags: 'y,z' }));
    expect(ix.listIndexFuncValues('tags').sort()).toEqual(['y', 'z']);
    const probe = pod('a', 'q', 'n', '1', { tags: 'z,w' });
    expect(ix.index('tags', probe).map((o) => o.metadata.name)).toEqual(['p']);
  });

  it('replace swaps the content and rebuilds every index', () => {
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc } });
    ix.add(pod('a', 'p1', 'n1'));
    ix.replace([pod('b', 'p2', 'n2'), pod('b', 'p3', 'n2')], '7');
    expect(ix.listKeys().sort()).toEqual(['b/p2', 'b/p3']);
    expect(ix.listIndexFuncValues('node')).toEqual(['n2']);
    expect(ix.listIndexFuncValues('namespace')).toEqual(['b']);
  });

  it('indexes existing objects at once when indexers are added later, and rejects name conflicts', () => {
    const ix = new Indexer();
    ix.add(pod('a', 'p1', 'n1', '1', { app: 'web' }));
    ix.addIndexers({ app: labelIndexFunc('app') });
    expect(ix.indexKeys('app', 'web')).toEqual(['a/p1']);
    expect(() => ix.addIndexers({ app: labelIndexFunc('app'), namespace: labelIndexFunc('x') })).toThrow('indexer conflict: app, namespace');
  });

  it('names a missing index in the error', () => {
    const ix = new Indexer();
    expect(() => ix.byIndex('nodeName', 'x')).toThrow('Index with name nodeName does not exist');
    expect(() => ix.indexKeys('nodeName', 'x')).toThrow('Index with name nodeName does not exist');
    expect(() => ix.index('nodeName', pod('a', 'b', 'c'))).toThrow('Index with name nodeName does not exist');
  });

  it('wraps an index function error with the key and index name', () => {
    const ix = new Indexer({
      indexers: {
        bad: () => {
          throw new Error('boom');
        },
      },
    });
    expect(() => ix.add(pod('a', 'p', 'n'))).toThrow('unable to calculate an index entry for key "a/p" on index "bad": boom');
  });

  it('traces add/update/delete with the index values that changed', () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc }, tracer });
    ix.add(pod('a', 'p', 'n1'));
    ix.update(pod('a', 'p', 'n2', '2'));
    ix.delete(pod('a', 'p', 'n2', '3'));
    expect(recs.map((r) => [r.op, r.key, r.rv, r.indices])).toEqual([
      ['add', 'a/p', '1', { namespace: { old: [], new: ['a'] }, node: { old: [], new: ['n1'] } }],
      ['update', 'a/p', '2', { node: { old: ['n1'], new: ['n2'] } }],
      ['delete', 'a/p', '2', { namespace: { old: ['a'], new: [] }, node: { old: ['n2'], new: [] } }],
    ]);
  });

  it('answers byIndex in time independent of the number of objects', () => {
    const ix = new Indexer({ indexers: { node: nodeNameIndexFunc } });
    for (let i = 0; i < 50_000; i++) ix.add(pod('ns', `p${i}`, `node-${i % 5000}`));
    const t0 = performance.now();
    let n = 0;
    for (let i = 0; i < 10_000; i++) n += ix.byIndex('node', `node-${i % 5000}`).length;
    const elapsed = performance.now() - t0;
    expect(n).toBe(100_000);
    expect(elapsed).toBeLessThan(1000);
  });
});
