import { describe, expect, it } from 'vitest';
import { indexChangeRecord } from '../../src/informer/index-changes.js';
import { approxIndexBytes, indexCounts, indexersFromSpecs, indexRows, indexTotals, indicesOf, NONE_VALUE, timeIndexBuild, withNoneValue } from '../../src/informer/index-report.js';
import { labelIndexFunc, nodeNameIndexFunc } from '../../src/informer/index-funcs.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (ns: string, name: string, node?: string, extra: { labels?: Record<string, string>; phase?: string; images?: string[]; rv?: string } = {}): KubeObject => ({
  kind: 'Pod',
  metadata: { namespace: ns, name, resourceVersion: extra.rv ?? '1', labels: extra.labels },
  spec: { ...(node === undefined ? {} : { nodeName: node }), containers: (extra.images ?? ['nginx']).map((image, i) => ({ name: `c${i}`, image })) },
  ...(extra.phase ? { status: { phase: extra.phase } } : {}),
});

function indexerWith(specs: string[], objs: KubeObject[]): Indexer {
  const ix = new Indexer({ indexers: indexersFromSpecs(specs) });
  for (const o of objs) ix.add(o);
  return ix;
}

describe('index funcs for kwatch index', () => {
  it('files objects the core index func drops under <none> instead of losing them', () => {
    const fn = withNoneValue(labelIndexFunc('app'));
    expect(fn(pod('a', 'p', 'n1', { labels: { app: 'web' } }))).toEqual(['web']);
    expect(fn(pod('a', 'p', 'n1'))).toEqual([NONE_VALUE]);
    // An empty label value is a value, not an absence.
    expect(fn(pod('a', 'p', 'n1', { labels: { app: '' } }))).toEqual(['']);
  });

  it('treats the "" of an unscheduled pod (nodeName) and a cluster-scoped object (namespace) as <none>', () => {
    const ix = indexerWith(['nodeName', 'namespace'], [pod('a', 'p1', 'n1'), pod('a', 'p2'), { kind: 'Node', metadata: { name: 'n1' }, spec: {} }]);
    expect(ix.indexKeys('nodeName', NONE_VALUE)).toEqual(['a/p2', 'n1']);
    expect(ix.indexKeys('namespace', NONE_VALUE)).toEqual(['n1']);
    expect(ix.listIndexFuncValues('nodeName')).not.toContain('');
    expect(withNoneValue(nodeNameIndexFunc)(pod('a', 'p2'))).toEqual(['']);
  });

  it('names each index by its spec as written, accepts jsonpath=EXPR and ignores repeated specs', () => {
    const indexers = indexersFromSpecs(['nodeName', ' phase ', 'jsonpath={.spec.containers[*].image}', '{.metadata.name}', 'nodeName']);
    expect(Object.keys(indexers)).toEqual(['nodeName', 'phase', 'jsonpath={.spec.containers[*].image}', '{.metadata.name}']);
    expect(indexers['jsonpath={.spec.containers[*].image}'](pod('a', 'p', 'n', { images: ['x', 'y', 'x'] }))).toEqual(['x', 'y']);
    expect(() => indexersFromSpecs(['nodename'])).toThrow(/unknown index "nodename"/);
  });
});

describe('index report', () => {
  const objs = [
    pod('a', 'p1', 'n1', { phase: 'Running', images: ['nginx', 'redis'] }),
    pod('b', 'p2', 'n2', { phase: 'Running' }),
    pod('a', 'p3', 'n2', { phase: 'Pending' }),
    pod('c', 'p4', undefined, { phase: 'Pending' }),
    pod('a', 'p5', 'n1', { phase: 'Running' }),
    pod('a', 'p0', 'n3'),
  ];

  it('gives one row per value, by count then value, with sorted keys', () => {
    const ix = indexerWith(['nodeName'], objs);
    expect(indexRows(ix, 'nodeName')).toEqual([
      { index: 'nodeName', value: 'n1', count: 2, keys: ['a/p1', 'a/p5'] },
      { index: 'nodeName', value: 'n2', count: 2, keys: ['a/p3', 'b/p2'] },
      { index: 'nodeName', value: '<none>', count: 1, keys: ['c/p4'] },
      { index: 'nodeName', value: 'n3', count: 1, keys: ['a/p0'] },
    ]);
    expect(indexCounts(ix, 'nodeName')).toEqual(new Map([['n1', 2], ['n2', 2], ['n3', 1], ['<none>', 1]]));
  });

  it("returns client-go's Indices shape: index name → value → keys", () => {
    const ix = indexerWith(['phase', 'nodeName'], objs.slice(0, 4));
    expect(indicesOf(ix, ['phase', 'nodeName'])).toEqual({
      phase: { Running: ['a/p1', 'b/p2'], Pending: ['a/p3', 'c/p4'] },
      nodeName: { n2: ['a/p3', 'b/p2'], '<none>': ['c/p4'], n1: ['a/p1'] },
    });
  });

  it('counts keys and objects apart when a JSONPath gives one object several values', () => {
    const spec = '{.spec.containers[*].image}';
    const ix = indexerWith([spec, 'phase'], objs);
    const t = indexTotals(spec, indexRows(ix, spec), ix.size);
    expect(t).toMatchObject({ index: spec, values: 2, keys: 7, objects: 6, none: 0 });
    expect(indexTotals('phase', indexRows(ix, 'phase'), ix.size)).toMatchObject({ values: 3, keys: 6, none: 1 });
    expect(t.approxBytes).toBe(approxIndexBytes(indexRows(ix, spec)));
  });

  it('estimates the size from the number of values and keys', () => {
    const small = approxIndexBytes([{ value: 'n1', count: 10 }]);
    expect(approxIndexBytes([{ value: 'n1', count: 20 }])).toBeGreaterThan(small);
    expect(approxIndexBytes([{ value: 'n1', count: 5 }, { value: 'n2', count: 5 }])).toBeGreaterThan(small);
  });

  it('times a from-scratch build whose content equals the incrementally built index', () => {
    let t = 0;
    const built = timeIndexBuild(objs, indexersFromSpecs(['nodeName']), () => (t += 5));
    expect(built.ms).toBe(5);
    expect(indicesOf(built.indexer, ['nodeName'])).toEqual(indicesOf(indexerWith(['nodeName'], objs), ['nodeName']));
    expect(built.indexer.listIndexFuncValues('namespace')).toEqual([]);
  });
});

describe('index change records', () => {
  it("narrows the indexer's trace records to the named indices and drops records that changed none of them", () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => {
      const shaped = indexChangeRecord(r, new Set(['nodeName']));
      if (shaped) records.push(shaped);
    });
    const ix = new Indexer({ indexers: indexersFromSpecs(['nodeName', 'label:app']), tracer });
    ix.add(pod('a', 'p1', 'n1', { labels: { app: 'x' } }));
    ix.update(pod('a', 'p1', 'n1', { labels: { app: 'y' }, rv: '2' })); // label only: no nodeName change
    ix.update(pod('a', 'p1', 'n2', { labels: { app: 'y' }, rv: '3' }));
    ix.delete(pod('a', 'p1', 'n2', { rv: '3' }));
    expect(records.map((r) => [r.op, r.key, r.rv, r.indices])).toEqual([
      ['add', 'a/p1', '1', { nodeName: { old: [], new: ['n1'] } }],
      ['update', 'a/p1', '3', { nodeName: { old: ['n1'], new: ['n2'] } }],
      ['delete', 'a/p1', '3', { nodeName: { old: ['n2'], new: [] } }],
    ]);
    expect(indexChangeRecord({ time: 0, stage: 'fifo', op: 'Added' }, new Set(['nodeName']))).toBeUndefined();
    expect(indexChangeRecord({ time: 0, stage: 'indexer', op: 'replace', size: 3 }, new Set(['nodeName']))).toMatchObject({ op: 'replace' });
  });
});
