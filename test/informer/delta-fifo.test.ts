import { describe, expect, it } from 'vitest';
import { DeltaFifo } from '../../src/informer/delta-fifo.js';
import type { Delta, Deltas, ObjectOrTombstone } from '../../src/informer/deltas.js';
import { DeletedFinalStateUnknown, FifoClosedError, RequeueError } from '../../src/informer/deltas.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer } from '../../src/informer/trace.js';
import type { TraceInterest, TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (name: string, rv = '1', extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv, ...extra } });
const tomb = (name: string, obj?: KubeObject) => new DeletedFinalStateUnknown(`ns/${name}`, obj);

/** Deltas as [type, name|"tomb:name", rv] triples for compact table assertions. */
function describeDeltas(d: Deltas): string[] {
  return d.map(({ type, object }) => `${type}:${show(object)}`);
}
function show(o: ObjectOrTombstone | undefined): string {
  if (o === undefined) return '-';
  if (o instanceof DeletedFinalStateUnknown) return `tomb(${o.key},${o.obj ? o.obj.metadata.resourceVersion : '-'})`;
  return `${o.metadata.name}@${o.metadata.resourceVersion}`;
}
function drain(f: DeltaFifo): { key: string; deltas: string[]; initial: boolean }[] {
  const out: { key: string; deltas: string[]; initial: boolean }[] = [];
  for (;;) {
    let seen: { key: string; deltas: string[]; initial: boolean } | undefined;
    const d = f.tryPop((deltas, initial) => {
      const newest = deltas[deltas.length - 1].object;
      seen = { key: newest instanceof DeletedFinalStateUnknown ? newest.key : `ns/${newest.metadata.name}`, deltas: describeDeltas(deltas), initial };
    });
    if (d === undefined) return out;
    out.push(seen!);
  }
}

type Step = (f: DeltaFifo, known: Indexer) => void;
interface Case {
  name: string;
  known?: KubeObject[];
  steps: Step[];
  want: { key: string; deltas: string[] }[];
}

const cases: Case[] = [
  {
    name: 'accumulates Added, Updated and Updated without merging them',
    steps: [(f) => f.add(pod('a', '1')), (f) => f.update(pod('a', '2')), (f) => f.update(pod('a', '3'))],
    want: [{ key: 'ns/a', deltas: ['Added:a@1', 'Updated:a@2', 'Updated:a@3'] }],
  },
  {
    name: 'collapses two consecutive Deleted deltas, keeping the older one',
    steps: [(f) => f.add(pod('a', '1')), (f) => f.delete(pod('a', '2')), (f) => f.delete(pod('a', '3'))],
    want: [{ key: 'ns/a', deltas: ['Added:a@1', 'Deleted:a@2'] }],
  },
  {
    name: 'keeps the newer Deleted when the older one is a tombstone',
    steps: [(f) => f.add(pod('a', '1')), (f) => f.delete(tomb('a', pod('a', '1'))), (f) => f.delete(pod('a', '3'))],
    want: [{ key: 'ns/a', deltas: ['Added:a@1', 'Deleted:a@3'] }],
  },
  {
    name: 'keeps the older Deleted when the newer one is a tombstone',
    steps: [(f) => f.add(pod('a', '1')), (f) => f.delete(pod('a', '2')), (f) => f.delete(tomb('a'))],
    want: [{ key: 'ns/a', deltas: ['Added:a@1', 'Deleted:a@2'] }],
  },
  {
    name: 'does not merge Deleted deltas that are not consecutive',
    steps: [(f) => f.add(pod('a', '1')), (f) => f.delete(pod('a', '2')), (f) => f.add(pod('a', '3')), (f) => f.delete(pod('a', '4'))],
    want: [{ key: 'ns/a', deltas: ['Added:a@1', 'Deleted:a@2', 'Added:a@3', 'Deleted:a@4'] }],
  },
  {
    name: 'ignores a Delete for a key neither known nor queued',
    steps: [(f) => f.delete(pod('ghost', '5'))],
    want: [],
  },
  {
    name: 'Replace tombstones vanished known keys in key order, whatever order the cache was filled in',
    known: [pod('z', '1'), pod('m', '2'), pod('b', '3')],
    steps: [(f) => f.replace([], '10')],
    want: [
      { key: 'ns/b', deltas: ['Deleted:tomb(ns/b,3)'] },
      { key: 'ns/m', deltas: ['Deleted:tomb(ns/m,2)'] },
      { key: 'ns/z', deltas: ['Deleted:tomb(ns/z,1)'] },
    ],
  },
  {
    name: 'queues a Delete for a key only the indexer knows',
    known: [pod('a', '1')],
    steps: [(f) => f.delete(pod('a', '2'))],
    want: [{ key: 'ns/a', deltas: ['Deleted:a@2'] }],
  },
  {
    name: 'keeps one queue entry per key, in first-queued order',
    steps: [(f) => f.add(pod('a', '1')), (f) => f.add(pod('b', '2')), (f) => f.update(pod('a', '3'))],
    want: [
      { key: 'ns/a', deltas: ['Added:a@1', 'Updated:a@3'] },
      { key: 'ns/b', deltas: ['Added:b@2'] },
    ],
  },
  {
    name: 'Replace emits Replaced for listed objects and tombstones for vanished known keys with the indexer object',
    known: [pod('a', '1'), pod('gone', '2')],
    steps: [(f) => f.replace([pod('a', '1'), pod('new', '3')], '10')],
    want: [
      { key: 'ns/a', deltas: ['Replaced:a@1'] },
      { key: 'ns/new', deltas: ['Replaced:new@3'] },
      { key: 'ns/gone', deltas: ['Deleted:tomb(ns/gone,2)'] },
    ],
  },
  {
    name: 'Replace tombstones a queued key absent from the list with its newest queued object',
    known: [pod('q', '1')],
    steps: [(f) => f.update(pod('q', '4')), (f) => f.replace([], '10')],
    want: [{ key: 'ns/q', deltas: ['Updated:q@4', 'Deleted:tomb(ns/q,4)'] }],
  },
  {
    name: 'Replace after a queued delete collapses the tombstone into the real Deleted',
    known: [pod('q', '1')],
    steps: [(f) => f.delete(pod('q', '5')), (f) => f.replace([], '10')],
    want: [{ key: 'ns/q', deltas: ['Deleted:q@5'] }],
  },
  {
    name: 'Replace unwraps a queued tombstone when building the new one',
    steps: [(f) => f.add(pod('q', '1')), (f) => f.replace([], '5'), (f) => f.add(pod('q', '6')), (f) => f.replace([], '10')],
    want: [{ key: 'ns/q', deltas: ['Added:q@1', 'Deleted:tomb(ns/q,1)', 'Added:q@6', 'Deleted:tomb(ns/q,6)'] }],
  },
  {
    name: 'Resync queues Sync for known keys and skips keys with queued deltas',
    known: [pod('a', '1'), pod('b', '2')],
    steps: [(f) => f.update(pod('b', '3')), (f) => f.resync()],
    want: [
      { key: 'ns/b', deltas: ['Updated:b@3'] },
      { key: 'ns/a', deltas: ['Sync:a@1'] },
    ],
  },
];

describe('DeltaFifo', () => {
  for (const c of cases) {
    it(c.name, () => {
      const known = new Indexer();
      for (const o of c.known ?? []) known.add(o);
      const f = new DeltaFifo({ knownObjects: known });
      for (const s of c.steps) s(f, known);
      expect(drain(f).map(({ key, deltas }) => ({ key, deltas }))).toEqual(c.want);
    });
  }

  it('emits Sync from Replace when emitDeltaTypeReplaced is false', () => {
    const f = new DeltaFifo({ emitDeltaTypeReplaced: false });
    f.replace([pod('a', '1')], '1');
    expect(drain(f)[0].deltas).toEqual(['Sync:a@1']);
  });

  it('transforms the listed objects of Replace also when it emits Sync (emitDeltaTypeReplaced false), not a resync', () => {
    // client-go 1.32 delta_fifo.go: Replace queues with queueActionInternalLocked(action, Replaced, item), and the
    // transformer is skipped only for the internal action Sync (Resync's) and tombstones.
    const known = new Indexer();
    known.add(pod('k', '1'));
    const f = new DeltaFifo({ knownObjects: known, emitDeltaTypeReplaced: false, transform: (o) => ({ ...o, metadata: { ...o.metadata, labels: { t: 'y' } } }) });
    f.replace([pod('a', '2'), pod('k', '1')], '2');
    const popped: Deltas[] = [];
    while (f.length > 0) f.tryPop((d) => void popped.push(d));
    expect(popped.map((d) => [d[0].type, (d[0].object as KubeObject).metadata.labels?.t])).toEqual([['Sync', 'y'], ['Sync', 'y']]);
    f.resync();
    const resync = f.getByKey('ns/k')!;
    expect([resync[0].type, (resync[0].object as KubeObject).metadata.labels]).toEqual(['Sync', undefined]);
  });

  it('counts the first Replace (listed keys plus queued deletions) as the initial list', () => {
    const known = new Indexer();
    known.add(pod('gone', '1'));
    const f = new DeltaFifo({ knownObjects: known });
    expect(f.hasSynced()).toBe(false);
    f.replace([pod('a', '2'), pod('b', '3')], '5');
    expect(f.hasSynced()).toBe(false);
    f.update(pod('c', '6'));
    const popped = drain(f);
    expect(popped.map((p) => [p.key, p.initial])).toEqual([
      ['ns/a', true],
      ['ns/b', true],
      ['ns/gone', true],
      ['ns/c', false],
    ]);
    expect(f.hasSynced()).toBe(true);
  });

  it('only the first Replace sets the initial population', () => {
    const f = new DeltaFifo();
    f.replace([], '1');
    expect(f.hasSynced()).toBe(true);
    f.replace([pod('a', '2')], '2');
    expect(drain(f)[0].initial).toBe(false);
  });

  it('is synced at once when an Add comes before any Replace', () => {
    const f = new DeltaFifo();
    f.add(pod('a'));
    expect(f.hasSynced()).toBe(true);
    expect(drain(f)[0].initial).toBe(false);
  });

  it('does nothing on Resync without knownObjects', () => {
    const f = new DeltaFifo();
    f.resync();
    expect(f.length).toBe(0);
  });

  it('puts deltas back on RequeueError unless the key was queued again, and rejects with the inner error', async () => {
    const f = new DeltaFifo();
    f.add(pod('a', '1'));
    const inner = new Error('not now');
    await expect(f.pop(() => Promise.reject(new RequeueError(inner)))).rejects.toBe(inner);
    expect(f.listKeys()).toEqual(['ns/a']);
    f.add(pod('b', '2'));
    await f.pop((d) => {
      f.update(pod('a', '3'));
      expect(describeDeltas(d)).toEqual(['Added:a@1']);
      throw new RequeueError();
    });
    expect(drain(f).map((p) => p.deltas)).toEqual([['Added:b@2'], ['Updated:a@3']]);
  });

  it('pop waits for an item and rejects with FifoClosedError once closed and empty', async () => {
    const f = new DeltaFifo();
    const got: string[][] = [];
    const p = f.pop((d) => void got.push(describeDeltas(d)));
    await Promise.resolve();
    f.add(pod('a', '1'));
    await p;
    expect(got).toEqual([['Added:a@1']]);
    f.add(pod('b', '2'));
    f.close();
    await f.pop(() => {});
    await expect(f.pop(() => {})).rejects.toBeInstanceOf(FifoClosedError);
    expect(() => f.tryPop(() => {})).toThrow(FifoClosedError);
  });

  it('pop rejects with the signal reason when aborted while waiting', async () => {
    const f = new DeltaFifo();
    const ac = new AbortController();
    const p = f.pop(() => {}, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });

  it('transforms Added, Updated, Replaced and Deleted objects but not Sync deltas or tombstones', () => {
    const known = new Indexer();
    known.add(pod('k', '1'));
    const seen: string[] = [];
    const f = new DeltaFifo({
      knownObjects: known,
      transform: (o) => {
        seen.push(o.metadata.name!);
        return { ...o, metadata: { ...o.metadata, labels: { t: 'y' } } };
      },
    });
    f.add(pod('a'));
    f.delete(pod('a'));
    f.replace([pod('b')], '2'); // tombstones for a (queued) and k (known)
    drain(f);
    f.resync();
    expect(seen).toEqual(['a', 'a', 'b']);
    const d = f.getByKey('ns/k')!;
    expect(d[0].type).toBe('Sync');
    expect((d[0].object as KubeObject).metadata.labels).toBeUndefined();
  });

  it('without knownObjects, ignores a Delete for a key it has not queued and queues one for a key it has', () => {
    // client-go's Delete with knownObjects == nil: only f.items decides ("presumably deleted when a relist happened").
    const f = new DeltaFifo();
    f.delete(pod('ghost', '1'));
    expect(f.length).toBe(0);
    f.add(pod('a', '1'));
    f.delete(pod('a', '2'));
    expect(drain(f).map((p) => p.deltas)).toEqual([['Added:a@1', 'Deleted:a@2']]);
  });

  it('is synced at once when a Delete (even an ignored one) or AddIfNotPresent comes before any Replace', () => {
    // client-go: "HasSynced returns true if an Add/Update/Delete/AddIfNotPresent are called first".
    const deleted = new DeltaFifo({ knownObjects: new Indexer() });
    deleted.delete(pod('ghost'));
    expect(deleted.hasSynced()).toBe(true);
    const readded = new DeltaFifo();
    readded.addIfNotPresent([{ type: 'Added', object: pod('a', '1') }]);
    expect(readded.hasSynced()).toBe(true);
    expect(drain(readded)).toEqual([{ key: 'ns/a', deltas: ['Added:a@1'], initial: false }]);
  });

  it('AddIfNotPresent of no deltas queues nothing (client-go refuses a zero-length Deltas)', () => {
    const f = new DeltaFifo();
    expect(() => f.addIfNotPresent([])).not.toThrow();
    expect(f.length).toBe(0);
    expect(f.hasSynced()).toBe(false);
  });

  it('getByKey hands out a copy of the queued deltas, and undefined for a key not queued', () => {
    const f = new DeltaFifo();
    expect(f.getByKey('ns/a')).toBeUndefined();
    f.add(pod('a', '1'));
    const copy = f.getByKey('ns/a')! as Delta[]; // readonly to TypeScript callers, an array to JavaScript ones
    copy.push({ type: 'Updated', object: pod('a', '9') });
    expect(describeDeltas(f.getByKey('ns/a')!)).toEqual(['Added:a@1']);
  });

  it('resourceVersion is "" until the first Replace, then the last one the reflector reported', () => {
    const f = new DeltaFifo();
    expect(f.resourceVersion).toBe('');
    f.replace([], '7');
    expect(f.resourceVersion).toBe('7');
    f.updateResourceVersion('9'); // a watch event or bookmark
    expect(f.resourceVersion).toBe('9');
  });

  it('an error other than RequeueError from process is rethrown and the deltas are not put back', async () => {
    const f = new DeltaFifo();
    f.add(pod('a', '1'));
    const boom = new Error('handler bug');
    await expect(f.pop(() => Promise.reject(boom))).rejects.toBe(boom);
    expect(f.length).toBe(0);
    f.add(pod('b', '2'));
    expect(() => f.tryPop(() => {
      throw boom;
    })).toThrow(boom);
    expect(f.length).toBe(0);
    // tryPop requeues on RequeueError as pop does.
    f.add(pod('c', '3'));
    expect(() => f.tryPop(() => {
      throw new RequeueError(new Error('later'));
    })).toThrow('later');
    expect(f.listKeys()).toEqual(['ns/c']);
  });

  it('a listener that wants only some fifo records gets those, with their delta types, tombstone flag and fifo kind', async () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    const wanted = new Set(['fifo Deleted', 'fifo pop', 'fifo requeue']);
    const interest: TraceInterest = { wants: (stage, op) => wanted.has(`${stage} ${op}`), skipped: () => {} };
    tracer.subscribe((r) => recs.push(r), interest);
    const known = new Indexer();
    known.add(pod('gone', '4'));
    const f = new DeltaFifo({ tracer, knownObjects: known });
    f.add(pod('a', '1'));
    f.delete(pod('a', '2'));
    f.replace([], '5'); // tombstones for a (collapsed into its real Deleted) and gone
    await expect(f.pop(() => Promise.reject(new RequeueError()))).resolves.toHaveLength(2);
    expect(recs.every((r) => r.stage === 'fifo')).toBe(true);
    expect(recs.map((r) => [r.op, r.key, r.tombstone, r.fifo, r.types, r.requeued])).toEqual([
      ['Deleted', 'ns/a', undefined, 'delta', undefined, undefined],
      ['Deleted', 'ns/a', true, 'delta', undefined, undefined],
      ['Deleted', 'ns/gone', true, 'delta', undefined, undefined],
      ['pop', 'ns/a', undefined, 'delta', ['Added', 'Deleted'], undefined],
      ['requeue', 'ns/a', undefined, 'delta', undefined, true],
    ]);
    // A listener that declines pops and requeues is not handed them.
    const onlyAdds: TraceRecord[] = [];
    const quiet = new Tracer();
    quiet.subscribe((r) => onlyAdds.push(r), { wants: (stage, op) => stage === 'fifo' && op === 'Added', skipped: () => {} });
    const g = new DeltaFifo({ tracer: quiet });
    g.add(pod('a', '1'));
    await g.pop(() => Promise.reject(new RequeueError()));
    expect(onlyAdds.map((r) => r.op)).toEqual(['Added']);
  });

  it('waitForItem resolves at once with an item queued or once closed, else when an item comes', async () => {
    const f = new DeltaFifo();
    let woke = false;
    const waiting = f.waitForItem().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    f.add(pod('a', '1'));
    await waiting;
    await f.waitForItem(); // an item is queued
    drain(f);
    expect(f.isClosed()).toBe(false);
    f.close();
    expect(f.isClosed()).toBe(true);
    await f.waitForItem(); // closed and empty
  });

  it('Resync skips a key its knownObjects lists but can no longer get (client-go: "unable to queue object for sync")', () => {
    const f = new DeltaFifo({ knownObjects: { listKeys: () => ['ns/gone', 'ns/a'], getByKey: (key) => (key === 'ns/a' ? pod('a', '1') : undefined) } });
    f.resync();
    expect(drain(f).map((p) => [p.key, p.deltas])).toEqual([['ns/a', ['Sync:a@1']]]);
  });

  it('emits a fifo trace record per delta and per pop', () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const f = new DeltaFifo({ tracer });
    f.add(pod('a', '1'));
    f.update(pod('a', '2'));
    drain(f);
    expect(recs.map((r) => [r.stage, r.op, r.key, r.rv, r.depth, r.deltas])).toEqual([
      ['fifo', 'Added', 'ns/a', '1', 1, 1],
      ['fifo', 'Updated', 'ns/a', '2', 1, 2],
      ['fifo', 'pop', 'ns/a', '2', 0, 2],
    ]);
  });
});
