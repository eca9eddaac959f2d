import { describe, expect, it } from 'vitest';
import type { Deltas } from '../../src/informer/deltas.js';
import { DeletedFinalStateUnknown } from '../../src/informer/deltas.js';
import { Indexer } from '../../src/informer/indexer.js';
import { RealFifo } from '../../src/informer/real-fifo.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (name: string, rv = '1'): KubeObject => ({ kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv } });

function drain(f: RealFifo): { d: string; initial: boolean }[] {
  const out: { d: string; initial: boolean }[] = [];
  for (;;) {
    let seen: Deltas = [];
    let initial = false;
    if (f.tryPop((d, i) => ((seen = d), (initial = i))) === undefined) return out;
    expect(seen).toHaveLength(1);
    const { type, object } = seen[0];
    const what = object instanceof DeletedFinalStateUnknown ? `tomb(${object.key},${object.obj?.metadata.resourceVersion ?? '-'})` : `${object.metadata.name}@${object.metadata.resourceVersion}`;
    out.push({ d: `${type}:${what}`, initial });
  }
}

function setup(known: KubeObject[] = []) {
  const indexer = new Indexer();
  for (const o of known) indexer.add(o);
  return { indexer, fifo: new RealFifo({ knownObjects: indexer }) };
}

describe('RealFifo', () => {
  it('delivers one single-delta entry per event, in arrival order', () => {
    const { fifo } = setup();
    fifo.add(pod('a', '1'));
    fifo.add(pod('b', '2'));
    fifo.update(pod('a', '3'));
    fifo.delete(pod('a', '4'));
    fifo.delete(pod('a', '4'));
    expect(drain(fifo).map((x) => x.d)).toEqual(['Added:a@1', 'Added:b@2', 'Updated:a@3', 'Deleted:a@4', 'Deleted:a@4']);
  });

  it('queues a Delete even for a key nobody knows', () => {
    const { fifo } = setup();
    fifo.delete(pod('ghost', '9'));
    expect(drain(fifo).map((x) => x.d)).toEqual(['Deleted:ghost@9']);
  });

  it('Replace queues tombstones first (queued keys, then known keys) and then Replaced per listed item', () => {
    const { fifo } = setup([pod('known-gone', '1'), pod('kept', '2'), pod('queued', '3')]);
    fifo.update(pod('queued', '4'));
    fifo.add(pod('queued-deleted', '5'));
    fifo.delete(pod('queued-deleted', '6'));
    fifo.add(pod('fresh', '7'));
    fifo.replace([pod('kept', '2'), pod('fresh', '7'), pod('new', '8')], '10');
    expect(drain(fifo).map((x) => x.d)).toEqual([
      'Updated:queued@4',
      'Added:queued-deleted@5',
      'Deleted:queued-deleted@6',
      'Added:fresh@7',
      'Deleted:tomb(ns/queued,4)',
      'Deleted:tomb(ns/known-gone,1)',
      'Replaced:kept@2',
      'Replaced:fresh@7',
      'Replaced:new@8',
    ]);
  });

  it('counts everything queued at the first Replace as the initial list', () => {
    const { fifo } = setup([pod('gone', '1')]);
    fifo.replace([pod('a', '2')], '2');
    fifo.add(pod('b', '3'));
    expect(fifo.hasSynced()).toBe(false);
    expect(drain(fifo).map((x) => [x.d, x.initial])).toEqual([
      ['Deleted:tomb(ns/gone,1)', true],
      ['Replaced:a@2', true],
      ['Added:b@3', false],
    ]);
    expect(fifo.hasSynced()).toBe(true);
  });

  it('Resync queues Sync for known keys with nothing queued', () => {
    const { fifo } = setup([pod('a', '1'), pod('b', '2')]);
    fifo.update(pod('b', '3'));
    fifo.resync();
    expect(drain(fifo).map((x) => x.d)).toEqual(['Updated:b@3', 'Sync:a@1']);
  });

  it('transforms incoming objects but not Sync entries or tombstones', () => {
    const indexer = new Indexer();
    indexer.add(pod('k', '1'));
    const seen: string[] = [];
    const fifo = new RealFifo({ knownObjects: indexer, transform: (o) => (seen.push(o.metadata.name!), o) });
    fifo.add(pod('a'));
    fifo.replace([], '2');
    drain(fifo);
    fifo.resync();
    expect(seen).toEqual(['a']);
    expect(fifo.listKeys()).toEqual(['ns/k']);
  });

  it('pop waits for an entry and ends with FifoClosedError after close', async () => {
    const { fifo } = setup();
    const p = fifo.pop(() => {});
    fifo.add(pod('a'));
    expect((await p)[0].type).toBe('Added');
    fifo.close();
    await expect(fifo.pop(() => {})).rejects.toThrow('closed');
  });

  it('waitForItem settles when an entry comes, at once when one waits or the FIFO is closed, and on abort', async () => {
    const { fifo } = setup();
    let woke = false;
    const w = fifo.waitForItem().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    fifo.add(pod('a'));
    await w;
    expect(woke).toBe(true);
    await fifo.waitForItem(); // an entry waits: no wait
    expect(drain(fifo)).toEqual([{ d: 'Added:a@1', initial: false }]);
    const ac = new AbortController();
    const aborted = fifo.waitForItem(ac.signal);
    ac.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    const closing = fifo.waitForItem();
    fifo.close();
    await closing;
    await fifo.waitForItem(); // closed: no wait, and tryPop then reports the close
    expect(() => fifo.tryPop(() => {})).toThrow('closed');
  });
});

describe('RealFifo.tryPopBatch (client-go 1.35 PopBatch, InOrderInformersBatchProcess)', () => {
  const names = (d: Deltas) => d.map((x) => `${x.type}:${(x.object as KubeObject).metadata.name}@${(x.object as KubeObject).metadata.resourceVersion}`);
  function batches(f: RealFifo, max?: number): string[][] {
    const out: string[][] = [];
    for (;;) {
      let seen: Deltas = [];
      if (f.tryPopBatch((d) => (seen = d), max) === 0) return out;
      out.push(names(seen));
    }
  }

  it('hands out distinct keys in arrival order, closing a batch at the first repeated key', () => {
    const { fifo } = setup();
    fifo.add(pod('a', '1'));
    fifo.add(pod('b', '2'));
    fifo.update(pod('a', '3'));
    fifo.add(pod('c', '4'));
    fifo.delete(pod('b', '5'));
    expect(batches(fifo)).toEqual([['Added:a@1', 'Added:b@2'], ['Updated:a@3', 'Added:c@4', 'Deleted:b@5']]);
  });

  it('never takes more than the batch size (1000 by default)', () => {
    const { fifo } = setup();
    for (let i = 0; i < 1205; i++) fifo.add(pod(`p${i}`, String(i)));
    expect(batches(fifo).map((b) => b.length)).toEqual([1000, 205]);
    for (let i = 0; i < 5; i++) fifo.add(pod(`q${i}`, String(i)));
    expect(batches(fifo, 2).map((b) => b.length)).toEqual([2, 2, 1]);
  });

  it('stops at the end of the initial list, which is in initial-list batches only', () => {
    const { fifo } = setup();
    fifo.replace([pod('a', '1'), pod('b', '2')], '2');
    fifo.add(pod('c', '3'));
    const seen: { n: string[]; initial: boolean }[] = [];
    for (;;) {
      let d: Deltas = [];
      let initial = false;
      if (fifo.tryPopBatch((x, i) => ((d = x), (initial = i))) === 0) break;
      seen.push({ n: names(d), initial });
    }
    expect(seen).toEqual([
      { n: ['Replaced:a@1', 'Replaced:b@2'], initial: true },
      { n: ['Added:c@3'], initial: false },
    ]);
    expect(fifo.hasSynced()).toBe(true);
  });

  it('traces one fifo batch record, and the batch number on each pop', () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const fifo = new RealFifo({ knownObjects: new Indexer(), tracer });
    fifo.add(pod('a', '1'));
    fifo.add(pod('b', '2'));
    fifo.add(pod('a', '3'));
    fifo.tryPopBatch(() => {});
    fifo.tryPopBatch(() => {});
    const popped = records.filter((r) => r.stage === 'fifo' && (r.op === 'batch' || r.op === 'pop'));
    expect(popped.map((r) => ({ op: r.op, key: r.key, batch: r.batch, size: r.size }))).toEqual([
      { op: 'batch', key: 'ns/a', batch: 1, size: 2 },
      { op: 'pop', key: 'ns/a', batch: 1, size: undefined },
      { op: 'pop', key: 'ns/b', batch: 1, size: undefined },
      // A batch of one is an ordinary pop (client-go's processSingle).
      { op: 'pop', key: 'ns/a', batch: undefined, size: undefined },
    ]);
  });
});
