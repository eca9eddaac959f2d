// Shared pieces of the integration tests: a recorded stream of writes against the sim, a handler that
// checks client-go's delivery contract as events arrive, and bounded polling.
import type { SimApi, SimObject } from '../../src/sim/api.js';
import { DeletedFinalStateUnknown, type KubeObject, type ObjectOrTombstone, type ResourceEventHandler } from '../../src/informer/index.js';
import { realClock, type Clock } from '../../src/informer/clock.js';

export const PODS = { group: '', version: 'v1', resource: 'pods' };
export const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

export const keyOf = (o: { metadata: { namespace?: string; name?: string } }): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? ''));
export const rvOf = (o: { metadata?: { resourceVersion?: string } } | undefined): number => Number(o?.metadata?.resourceVersion ?? NaN);

/** A seeded PRNG so every run writes the same stream. */
export { seededRandom as seeded } from '../../src/informer/seeded-random.js';

export interface ServerChange {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
}

/**
 * Writes pods through the sim's in-process API and remembers every change per key (the server's truth).
 * `gap` marks changes made while the client was deliberately disconnected: those may be collapsed by a relist.
 */
export class PodWriter {
  readonly changes = new Map<string, ServerChange[]>();
  readonly gapRvs = new Set<number>();
  readonly live: string[] = [];
  private seq = 0;
  writes = 0;

  constructor(
    private readonly api: SimApi,
    private readonly rand: () => number,
    private readonly namespaces: string[],
  ) {
    for (const ns of namespaces) if (!api.get(NAMESPACES, undefined, ns)) api.create(NAMESPACES, { metadata: { name: ns } });
  }

  private record(obj: SimObject, type: ServerChange['type'], gap: boolean): void {
    const key = keyOf(obj);
    const rv = rvOf(obj);
    let list = this.changes.get(key);
    if (!list) this.changes.set(key, (list = []));
    list.push({ rv, type });
    if (gap) this.gapRvs.add(rv);
    this.writes++;
  }

  create(gap = false): string {
    const n = this.seq++;
    const ns = this.namespaces[n % this.namespaces.length];
    const pod: SimObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p-${n}`, namespace: ns, labels: { app: `a${n % 7}`, gen: '0' }, managedFields: [{ manager: 'it', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }] },
      spec: { nodeName: `node-${n % 5}`, containers: [{ name: 'c', image: 'nginx:1.27' }] },
      status: { phase: 'Pending' },
    };
    const created = this.api.create(PODS, pod);
    this.live.push(keyOf(created));
    this.record(created, 'ADDED', gap);
    return keyOf(created);
  }

  update(gap = false, key = this.pick()): string | undefined {
    if (!key) return undefined;
    const [ns, name] = key.split('/');
    const cur = this.api.get(PODS, ns, name)!;
    const gen = Number(cur.metadata.labels?.gen ?? 0) + 1;
    const next: SimObject = { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, gen: String(gen) } }, status: { phase: gen % 3 === 0 ? 'Running' : 'Pending' } };
    const updated = this.api.update(PODS, next);
    this.record(updated, 'MODIFIED', gap);
    return key;
  }

  delete(gap = false, key = this.pick()): string | undefined {
    if (!key) return undefined;
    const [ns, name] = key.split('/');
    const deleted = this.api.delete(PODS, ns, name);
    this.live.splice(this.live.indexOf(key), 1);
    this.record(deleted, 'DELETED', gap);
    return key;
  }

  /** One random write, keeping the population near `target`. */
  random(target: number, gap = false): void {
    const r = this.rand();
    const pressure = this.live.length < target ? 0.15 : -0.15;
    if (this.live.length === 0 || r < 0.3 + pressure) this.create(gap);
    else if (r < 0.8) this.update(gap);
    else this.delete(gap);
  }

  burst(n: number, target: number, gap = false): void {
    for (let i = 0; i < n; i++) this.random(target, gap);
  }

  pick(): string | undefined {
    return this.live.length ? this.live[Math.floor(this.rand() * this.live.length)] : undefined;
  }

  /** key → resourceVersion of the objects the server holds now. */
  serverState(namespace?: string): Map<string, number> {
    return new Map(this.api.list(PODS, namespace).map((o) => [keyOf(o), rvOf(o)]));
  }
}

export interface Delivery {
  op: 'add' | 'update' | 'sync' | 'delete' | 'tombstone';
  rv: number;
  initial?: boolean;
}

/**
 * A handler that checks, as notifications arrive, the contract every client-go handler relies on: per key,
 * adds and real updates carry strictly increasing resourceVersions, an update's old object is the one last
 * delivered, a sync update (old RV == new RV) redelivers exactly the last state, adds only for absent keys,
 * deletes only for present keys, a tombstone carries the last delivered state.
 */
export class CheckingHandler implements ResourceEventHandler {
  readonly deliveries = new Map<string, Delivery[]>();
  readonly state = new Map<string, { rv: number; deleted: boolean }>();
  readonly violations: string[] = [];
  readonly counts = { add: 0, update: 0, sync: 0, delete: 0, tombstone: 0, initial: 0 };

  constructor(readonly name: string) {}

  private push(key: string, d: Delivery): void {
    let list = this.deliveries.get(key);
    if (!list) this.deliveries.set(key, (list = []));
    list.push(d);
  }

  private bad(msg: string): void {
    if (this.violations.length < 50) this.violations.push(`${this.name}: ${msg}`);
  }

  onAdd(obj: KubeObject, isInInitialList: boolean): void {
    const key = keyOf(obj);
    const rv = rvOf(obj);
    const prev = this.state.get(key);
    if (prev && !prev.deleted) this.bad(`onAdd ${key}@${rv} while ${key}@${prev.rv} is present`);
    if (prev && rv <= prev.rv) this.bad(`onAdd ${key}@${rv} not after ${prev.rv}`);
    this.state.set(key, { rv, deleted: false });
    this.counts.add++;
    if (isInInitialList) this.counts.initial++;
    this.push(key, { op: 'add', rv, initial: isInInitialList });
  }

  onUpdate(oldObj: KubeObject, newObj: KubeObject): void {
    const key = keyOf(newObj);
    const rv = rvOf(newObj);
    const oldRv = rvOf(oldObj);
    const prev = this.state.get(key);
    if (!prev || prev.deleted) this.bad(`onUpdate ${key}@${rv} for an absent key`);
    else if (oldRv !== prev.rv) this.bad(`onUpdate ${key}: old object @${oldRv} is not the last delivered @${prev.rv}`);
    if (rv === oldRv) {
      this.counts.sync++;
      this.push(key, { op: 'sync', rv });
      return;
    }
    if (prev && rv <= prev.rv) this.bad(`onUpdate ${key}@${rv} not after ${prev.rv} (delivered twice or out of order)`);
    this.state.set(key, { rv, deleted: false });
    this.counts.update++;
    this.push(key, { op: 'update', rv });
  }

  onDelete(obj: ObjectOrTombstone): void {
    const tombstone = obj instanceof DeletedFinalStateUnknown;
    const key = tombstone ? obj.key : keyOf(obj);
    const rv = rvOf(tombstone ? obj.obj : obj);
    const prev = this.state.get(key);
    if (!prev || prev.deleted) this.bad(`onDelete ${key}@${rv} for an absent key`);
    else if (tombstone && rv !== prev.rv) this.bad(`tombstone ${key}@${rv} does not carry the last delivered state @${prev.rv}`);
    else if (!tombstone && rv <= prev.rv) this.bad(`onDelete ${key}@${rv} not after ${prev.rv}`);
    this.state.set(key, { rv: prev?.rv ?? rv, deleted: true });
    this.counts[tombstone ? 'tombstone' : 'delete']++;
    this.push(key, { op: tombstone ? 'tombstone' : 'delete', rv });
  }

  /** key → rv of what this handler believes exists. */
  view(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [k, s] of this.state) if (!s.deleted) out.set(k, s.rv);
    return out;
  }
}

export function sameState(a: Map<string, number>, b: Map<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** A readable difference of two key → rv maps (first few entries). */
export function stateDiff(actual: Map<string, number>, expected: Map<string, number>): string {
  const out: string[] = [];
  for (const [k, v] of expected) if (actual.get(k) !== v) out.push(`${k}: expected @${v}, got ${actual.has(k) ? `@${actual.get(k)}` : 'nothing'}`);
  for (const [k, v] of actual) if (!expected.has(k)) out.push(`${k}: unexpected @${v}`);
  return out.length ? `${out.length} differences: ${out.slice(0, 8).join('; ')}` : 'equal';
}

/**
 * The real clock with every wait an informer arms through it (its reflector's backoffs and Retry-After sleeps) cut
 * to `factor` of its length, while now() stays real: what the reflector measures (how long a watch lasted, for
 * client-go's "very short watch" rule) is unchanged, and a test of its faults does not sit out seconds of sleep.
 */
export function quickWaits(factor: number): Clock {
  return {
    now: () => realClock.now(),
    setTimeout: (fn, ms) => realClock.setTimeout(fn, ms * factor),
    sleep: (ms, signal) => realClock.sleep(ms * factor, signal),
  };
}

/** Polls `cond` until it holds; throws `describe()` after `ms`. */
export async function until(cond: () => boolean, ms: number, describe: () => string = () => 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms: ${describe()}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** An object as a cache should hold it: JSON as the server sends it, without managedFields. */
export function normalise(o: object): unknown {
  const copy = JSON.parse(JSON.stringify(o)) as { metadata?: Record<string, unknown> };
  if (copy.metadata) delete copy.metadata.managedFields;
  return copy;
}

/**
 * @kubernetes/client-node as its users set it up, pointed at a sim through a kubeconfig written at `path`
 * (imported on demand: it takes about half a second to load).
 */
export async function clientNodeFor(sim: { writeKubeconfig(file: string): Promise<void> }, path: string) {
  await sim.writeKubeconfig(path);
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return { k8s, kc, core: kc.makeApiClient(k8s.CoreV1Api) };
}
