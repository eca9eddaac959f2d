import { describe, expect, it } from 'vitest';
import { DeltaFifo } from '../../src/informer/delta-fifo.js';
import type { Deltas, InformerQueue, ObjectOrTombstone } from '../../src/informer/deltas.js';
import { DeletedFinalStateUnknown, deletionHandlingKey } from '../../src/informer/deltas.js';
import { labelIndexFunc, nodeNameIndexFunc } from '../../src/informer/index-funcs.js';
import { Indexer } from '../../src/informer/indexer.js';
import { RealFifo } from '../../src/informer/real-fifo.js';
import type { ReflectorStore } from '../../src/informer/reflector-store.js';
import { processDeltas } from '../../src/informer/shared-informer.js';
import type { KubeObject } from '../../src/informer/types.js';
import { Queue } from '../../src/informer/workqueue/queue.js';
import { seededRandom } from '../../src/informer/seeded-random.js';


const NONE: string[] = [];
// A tags label is one of eight strings: each is split once (the indexer calls this twice per write; a split per call
// was a tenth of the file's CPU). The indexer only reads what an IndexFunc returns.
const splitTags = new Map<string, string[]>();
const tags = (o: KubeObject) => {
  const label = o.metadata.labels?.tags;
  if (label === undefined) return NONE;
  let values = splitTags.get(label);
  if (values === undefined) splitTags.set(label, (values = label.split(',')));
  return values;
};
const indexers = { node: nodeNameIndexFunc, app: labelIndexFunc('app'), tags };

/** Every index equals one rebuilt from the items; no empty sets, no stale keys. */
function checkIndices(ix: Indexer): void {
  const funcs = { namespace: (o: KubeObject) => [o.metadata.namespace ?? ''], ...indexers };
  for (const [name, fn] of Object.entries(funcs)) {
    const want = new Map<string, Set<string>>();
    for (const key of ix.listKeys()) {
      for (const v of fn(ix.getByKey(key)!)) {
        if (!want.has(v)) want.set(v, new Set());
        want.get(v)!.add(key);
      }
    }
    const values = ix.listIndexFuncValues(name);
    expect(new Set(values).size).toBe(want.size);
    for (const v of values) {
      const keys = ix.indexKeys(name, v);
      expect(keys.length, `empty set ${name}=${v}`).toBeGreaterThan(0);
      expect(keys).toEqual([...(want.get(v) ?? [])].sort());
    }
  }
}

function run(kind: 'delta' | 'real', ops: number, seed: number): void {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  /**
   * The keys of a Map or Set in its iteration order (insertion order; setting a key again keeps its place), kept as
   * it changes, so a random pick reads an index instead of copying every key first: the same key a pick from
   * `[...map.keys()]` would take, so a seed runs the same operations as before.
   */
  const orderedKeys = () => {
    const keys: string[] = [];
    return {
      keys,
      added: (key: string) => void keys.push(key),
      removed: (key: string) => void keys.splice(keys.indexOf(key), 1),
    };
  };
  const indexer = new Indexer({ indexers });
  const fifo: InformerQueue & ReflectorStore = kind === 'delta' ? new DeltaFifo({ knownObjects: indexer }) : new RealFifo({ knownObjects: indexer });
  const queue = new Queue<string>({ maxReasonsPerItem: 8 });
  /** The server's state. */
  const server = new Map<string, KubeObject>();
  /** What the client was told (events delivered to the FIFO); equals `server` unless disconnected. */
  const told = new Map<string, KubeObject>();
  let rv = 1;
  let disconnected = false;
  const inFlight = new Set<string>();
  const serverOrder = orderedKeys();
  const inFlightOrder = orderedKeys();
  const lastRv = new Map<string, number>();
  let processedKeys = 0;
  let equalChecks = 0;

  const rvOf = (o: ObjectOrTombstone) => Number((o instanceof DeletedFinalStateUnknown ? o.obj?.metadata.resourceVersion : o.metadata.resourceVersion) ?? 0);
  const seen = (o: ObjectOrTombstone, allowEqual: boolean) => {
    const key = deletionHandlingKey(o);
    const prev = lastRv.get(key) ?? 0;
    const now = rvOf(o);
    if (allowEqual ? now < prev : now <= prev) throw new Error(`${key}: rv ${now} after ${prev} (${kind}, seed ${seed})`);
    lastRv.set(key, now);
  };
  const handler = {
    onAdd: (o: KubeObject) => (seen(o, false), queue.add(deletionHandlingKey(o), { op: 'OnAdd', rv: o.metadata.resourceVersion })),
    onUpdate: (old: KubeObject, o: KubeObject) => (seen(o, old.metadata.resourceVersion === o.metadata.resourceVersion), queue.add(deletionHandlingKey(o), { op: 'OnUpdate' })),
    onDelete: (o: ObjectOrTombstone) => (seen(o, true), lastRv.delete(deletionHandlingKey(o)), queue.add(deletionHandlingKey(o), { op: 'OnDelete' })),
  };
  const processOne = (d: Deltas, initial: boolean) => processDeltas(handler, indexer, d, initial);
  const drainFifo = () => {
    while (fifo.tryPop(processOne) !== undefined);
  };
  const mkObj = (name: string): KubeObject => ({
    metadata: {
      name,
      namespace: pick(['a', 'b', 'c']),
      resourceVersion: String(++rv),
      labels: rnd() < 0.7 ? { app: pick(['web', 'db', 'cache']), tags: [pick(['x', 'y']), pick(['y', 'z', 'w'])].join(',') } : undefined,
    },
    spec: rnd() < 0.9 ? { nodeName: pick(['n1', 'n2', 'n3', 'n4']) } : undefined,
  });
  const deliver = (f: () => void) => {
    if (!disconnected) f();
  };

  for (let i = 0; i < ops; i++) {
    const r = rnd();
    if (r < 0.25) {
      const name = `p${Math.floor(rnd() * 300)}`;
      const obj = mkObj(name);
      const key = deletionHandlingKey(obj);
      const existed = server.has(key);
      server.set(key, obj);
      if (!existed) serverOrder.added(key);
      deliver(() => (told.set(key, obj), existed ? fifo.update(obj) : fifo.add(obj)));
    } else if (r < 0.45 && server.size > 0) {
      const key = pick(serverOrder.keys);
      const obj = { ...mkObj(server.get(key)!.metadata.name!), metadata: { ...mkObj('x').metadata, name: server.get(key)!.metadata.name, namespace: server.get(key)!.metadata.namespace } };
      server.set(key, obj);
      deliver(() => (told.set(key, obj), fifo.update(obj)));
    } else if (r < 0.55 && server.size > 0) {
      const key = pick(serverOrder.keys);
      const last = { ...server.get(key)!, metadata: { ...server.get(key)!.metadata, resourceVersion: String(++rv) } };
      server.delete(key);
      serverOrder.removed(key);
      deliver(() => (told.delete(key), fifo.delete(last)));
    } else if (r < 0.565) {
      disconnected = true; // changes from now on are missed until the next relist
    } else if (r < 0.575) {
      disconnected = false;
      told.clear();
      for (const [k, v] of server) told.set(k, v);
      fifo.replace([...server.values()], String(rv));
    } else if (r < 0.585) {
      fifo.resync();
    } else if (r < 0.78) {
      for (let n = Math.floor(rnd() * 8); n > 0; n--) fifo.tryPop(processOne);
    } else if (r < 0.8) {
      drainFifo();
    } else if (r < 0.9) {
      const got = queue.tryGet();
      if (got && !got.shutdown) {
        if (inFlight.has(got.item)) throw new Error(`op ${i}: ${got.item} handed out while being processed`);
        if (got.reasons.length === 0) throw new Error(`op ${i}: ${got.item} handed out without a reason`);
        inFlight.add(got.item);
        inFlightOrder.added(got.item);
        processedKeys++;
      }
    } else if (inFlight.size > 0) {
      const key = pick(inFlightOrder.keys);
      inFlight.delete(key);
      inFlightOrder.removed(key);
      queue.done(key);
    }

    if (fifo.length === 0 && !disconnected && i % 5 === 0) {
      // Nothing in flight in the FIFO: the cache must equal what the client was told.
      if (indexer.size !== told.size) throw new Error(`op ${i}: cache holds ${indexer.size} objects, model ${told.size} (${kind}, seed ${seed})`);
      for (const [k, v] of told) {
        if (indexer.getByKey(k) !== v) throw new Error(`op ${i}: cache differs from model at ${k} (${kind}, seed ${seed})`);
      }
      equalChecks++;
    }
    if (i % 2000 === 0) checkIndices(indexer);
  }

  // Reconnect with a final relist and drain everything: the cache equals the server.
  fifo.replace([...server.values()], String(rv));
  drainFifo();
  expect(indexer.size).toBe(server.size);
  for (const [k, v] of server) expect(indexer.getByKey(k)).toBe(v);
  checkIndices(indexer);
  for (const k of inFlight) queue.done(k);
  for (let got = queue.tryGet(); got && !got.shutdown; got = queue.tryGet()) queue.done(got.item);
  expect(queue.len()).toBe(0);
  expect(queue.processingCount()).toBe(0);
  expect(processedKeys).toBeGreaterThan(1000);
  expect(equalChecks).toBeGreaterThan(500);
}

// CPU-bound: 100k operations through the real FIFO, indexer and workqueue, checked as they go (the profile spreads
// over the indexer, the queue and the model; no one hot spot to cut). 7–14 s each alone at load 20, and
// 45 s at load 25, where the default 30 s cut it: the bound is 120 s, the work is not made smaller.
describe('randomised invariants', { timeout: 120_000 }, () => {
  it('over 100k random add/update/delete/relist operations the DeltaFIFO pipeline keeps the indexer equal to the model', () => {
    run('delta', 100_000, 42);
  });

  it('over 100k random add/update/delete/relist operations the RealFIFO pipeline keeps the indexer equal to the model', () => {
    run('real', 100_000, 7);
  });
});
