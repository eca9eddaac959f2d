// The resource quota controller: each ResourceQuota's status.hard (its spec.hard) and status.used, counted over its
// namespace for what it limits (quota-usage.ts), kept current as objects come, change and go. Refusing writes over
// quota is admission's part (quota-admission.ts).
//
// A quota is counted in full once (when it is new, its spec changed, or the controller has not seen it); after that
// its usage follows the change events: each write adds what the new state counts and takes off what the old state
// counted, so a write into a namespace of 12,000 pods costs what it costs in an empty one. kube's controller recounts
// from its informers' caches on replenishment events and a periodic resync (pkg/controller/resourcequota/
// resource_quota_controller.go); the sim keeps the same totals from the same events without re-reading the namespace,
// and recounts every quota in full at kube's resync period, on the sim's clock (resyncAll).
import type { SimObject } from '../api.js';
import { systemClock, type SimClock } from '../clock.js';
import type { Change } from '../history.js';
import { addQuantities, formatQuantity, ZERO, type Quantity } from '../kinds/quantity.js';
import { jsonEqual } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { countedCollection, inScope, namespaceUsage, storedQuota, usageOf } from './quota-usage.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** status.used for one quota's hard names in a namespace. */
export function quotaUsage(store: SimStore, namespace: string, quota: SimObject): Record<string, string> {
  return formatUsage(namespaceUsage(store, namespace, quota));
}

function formatUsage(used: Record<string, Quantity>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, q] of Object.entries(used)) out[name] = formatQuantity(q);
  return out;
}

/** The part of a quota that decides what it counts: its hard names and scopes. */
const countingSpec = (quota: SimObject): string => JSON.stringify(quota.spec ?? {});

/** What one object adds to a quota's names (those its kind counts, beyond plain object counts). */
type Contribution = Record<string, Quantity>;

/**
 * One quota's running usage: what it counts (spec), the totals so far, and what each counted object adds, so that a
 * change takes off exactly what the object's previous state added without parsing that state again.
 */
interface Tally {
  readonly uid: string;
  readonly spec: string;
  readonly hard: Record<string, unknown>;
  readonly scoped: boolean;
  /** The quota as inScope reads it (spec.scopes, spec.scopeSelector). */
  readonly quota: SimObject;
  /** The hard names the sim counts, each with the collection (group/resource) it counts. */
  readonly names: readonly { name: string; group: string; resource: string }[];
  readonly used: Record<string, Quantity>;
  /** "group/resource key" → what that object adds to the names that need its content (all but unscoped count/). */
  readonly contributions: Map<string, Contribution>;
}

const ONE: Quantity = { milli: 1000n, binary: false };
const MINUS_ONE: Quantity = { milli: -1000n, binary: false };
const sub = (a: Quantity, b: Quantity): Quantity => ({ milli: a.milli - b.milli, binary: a.binary || b.binary });
/** An unscoped object count: it changes only when objects come and go, and needs no object's content. */
const plainCount = (tally: Tally, name: string): boolean => !tally.scoped && name.startsWith('count/');
const objectId = (type: ResourceType, key: string): string => `${type.group}/${type.resource} ${key}`;

/** What `obj` adds to the tally's names of its kind that need its content; undefined when it adds to none of them. */
function contribution(tally: Tally, type: ResourceType, obj: SimObject): Contribution | undefined {
  let out: Contribution | undefined;
  let counted: boolean | undefined;
  for (const { name, group, resource } of tally.names) {
    if (group !== type.group || resource !== type.resource || plainCount(tally, name)) continue;
    counted ??= !tally.scoped || inScope(tally.quota, type, obj);
    if (!counted) return undefined;
    const q = usageOf(type, obj, name);
    if (q && q.milli !== 0n) (out ??= {})[name] = q;
  }
  return out;
}

/** Whether two contributions add the same to every name (undefined: adds nothing). */
function sameContribution(a: Contribution | undefined, b: Contribution | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  for (const name of names) {
    const x = a[name];
    const y = b[name];
    if (y === undefined || x.milli !== y.milli || x.binary !== y.binary) return false;
  }
  return true;
}

/**
 * A quota counted in full over its namespace: the totals as namespaceUsage counts them (the same evaluators), and
 * what each object adds, for the changes that follow.
 */
function countedTally(store: SimStore, namespace: string, quota: SimObject): Tally {
  const spec = (quota.spec ?? {}) as Json;
  const hard = (spec.hard ?? {}) as Record<string, unknown>;
  const names = Object.keys(hard).flatMap((name) => {
    const coll = countedCollection(name);
    return coll ? [{ name, ...coll }] : [];
  });
  const tally: Tally = {
    uid: quota.metadata.uid ?? '', spec: countingSpec(quota), hard, scoped: spec.scopes?.length > 0 || spec.scopeSelector !== undefined,
    quota, names, used: namespaceUsage(store, namespace, quota), contributions: new Map(),
  };
  const collections = new Set(names.filter((n) => !plainCount(tally, n.name)).map((n) => `${n.group}/${n.resource}`));
  for (const id of collections) {
    const [group, resource] = id.split('/');
    const type = store.registry.lookup(group, 'v1', resource) ?? store.registry.all().find((t) => t.group === group && t.resource === resource);
    if (!type) continue;
    for (const stored of store.storedIn(type, namespace)) {
      const c = contribution(tally, type, stored.obj);
      if (c) tally.contributions.set(objectId(type, stored.key), c);
    }
  }
  return tally;
}

/**
 * How long a namespace's usage may wait before status.used is written: the writes of a burst (deletes, most of all:
 * admission already counted creates) share one quota update, as kube's queue folds the replenishment events that
 * arrive while a quota waits for its worker.
 */
const WRITE_DELAY_MS = 10;
/**
 * The least time between two of this controller's writes of a namespace's quotas. A burst of deletes (admission
 * counts creates itself) is then written a few times a second rather than every WRITE_DELAY_MS: each write is a full
 * status update with its managed fields, and at 10 ms it cost a delete in a quota'd namespace a tenth more CPU than
 * one in a plain namespace. kube's controller is no quicker: it writes after a resync of the quota from its
 * informers, its queue folding the replenishment events that arrive meanwhile.
 */
const WRITE_INTERVAL_MS = 100;
/**
 * kube-controller-manager's --resource-quota-sync-period, 5 minutes by default
 * (pkg/controller/resourcequota/config/v1alpha1/defaults.go): how often every quota is counted afresh.
 */
const QUOTA_RESYNC_MS = 5 * 60_000;

export class ResourceQuotaController {
  readonly queue: WorkQueue;
  readonly quotas: ResourceType;
  /** namespace → quota name → running usage. A quota without a tally is counted in full at its next sync. */
  private readonly tallies = new Map<string, Map<string, Tally>>();
  /** namespace → when this controller last wrote one of its quotas (Date.now()). */
  private readonly lastWrite = new Map<string, number>();
  /** Full counts made (each parses the namespace's counted objects): for tests and benchmarks. */
  fullCounts = 0;
  /** Cancels the next periodic resync (set from startResync until stopResync). */
  private cancelResync: (() => void) | undefined;

  constructor(private readonly store: SimStore, onError?: (key: string, err: unknown) => void, private readonly clock: SimClock = systemClock) {
    this.queue = new WorkQueue((ns) => this.sync(ns), onError);
    this.quotas = store.resolve({ group: '', version: 'v1', resource: 'resourcequotas' });
  }

  /**
   * Starts kube's periodic full resync (Run's `wait.Until(enqueueAll, resyncPeriod)`): every QUOTA_RESYNC_MS of the
   * sim's clock, each quota is counted afresh (resyncAll). The first comes one period after the start, not at it as
   * wait.Until's does: a sim that nobody touches writes nothing when it starts (controller-manager.ts, start).
   */
  startResync(): void {
    if (this.cancelResync) return;
    const arm = (): void => {
      this.cancelResync = this.clock.at(this.clock.now() + QUOTA_RESYNC_MS, () => {
        arm();
        this.resyncAll();
      });
    };
    arm();
  }

  /** Cancels the next resync: a stopped sim keeps no timer. */
  stopResync(): void {
    this.cancelResync?.();
    this.cancelResync = undefined;
  }

  /**
   * kube's enqueueAll: every quota is synced with a full count of what it counts, so a status.used written by hand (or
   * running totals gone wrong) is put right even when nothing it counts changes. The running totals are dropped and
   * rebuilt from that count (sync); status is written only where it differs, as syncResourceQuota writes only when
   * `dirty` (its usage not quota.Equals the stored status.used, or status.hard not spec.hard). kube compares by value,
   * the sim compares strings: the same answer now that writes store quantities canonically (quantity-fields.ts), except
   * for a string ParseQuantity keeps as sent ("+1", "1e3" written into status by hand), which the sim rewrites.
   */
  private resyncAll(): void {
    const namespaces = new Set(this.store.storedIn(this.quotas).map((s) => s.meta.namespace!));
    for (const ns of namespaces) {
      this.tallies.delete(ns);
      this.queue.add(ns, 0);
    }
  }

  /**
   * Runs inside the store's write: updates the namespace's running usage from the change and queues a sync that
   * writes status.used if it differs. Namespaces without quotas cost one lookup; `obj` is the change's object, parsed
   * once for every controller, and read here only when a quota counts the object's content.
   */
  observe(change: Change, type: ResourceType, obj: () => SimObject = () => change.cur.obj): void {
    const ns = change.cur.meta.namespace;
    if (!ns) return;
    if (type === this.quotas) { this.observeQuota(change, ns); return; }
    const tallies = this.tallies.get(ns);
    if (!tallies || tallies.size === 0) {
      // Quotas the controller has not counted yet (it started after them): count them at the next sync.
      if (this.store.storedIn(this.quotas, ns).length > 0) this.queue.add(ns, 0);
      return;
    }
    const id = objectId(type, change.key);
    let changed = false;
    for (const tally of tallies.values()) {
      let content = false;
      for (const { name, group, resource } of tally.names) {
        if (group !== type.group || resource !== type.resource) continue;
        if (!plainCount(tally, name)) { content = true; continue; }
        if (change.type === 'MODIFIED') continue;
        tally.used[name] = addQuantities(tally.used[name] ?? ZERO, change.type === 'ADDED' ? ONE : MINUS_ONE);
        changed = true;
      }
      if (!content) continue;
      const before = tally.contributions.get(id);
      const after = change.type === 'DELETED' ? undefined : contribution(tally, type, obj());
      // Most updates (labels, annotations, status) change nothing a quota counts: no total moves, no sync is queued.
      if (sameContribution(before, after)) continue;
      for (const [name, q] of Object.entries(before ?? {})) tally.used[name] = sub(tally.used[name] ?? ZERO, q);
      for (const [name, q] of Object.entries(after ?? {})) tally.used[name] = addQuantities(tally.used[name] ?? ZERO, q);
      if (after) tally.contributions.set(id, after);
      else tally.contributions.delete(id);
      changed = true;
    }
    if (changed) this.queue.add(ns, this.writeDelay(ns));
  }

  /**
   * A CustomResourceDefinition was written: quotas on `count/<plural>.<group>` of its group count a kind that may only
   * now be served (or no longer be), so their namespaces are counted afresh. Until then their status.used lacks the
   * name and admission refuses its writes with "status unknown for quota", as kube's does until its controller has
   * discovered the new kind (pkg/controller/resourcequota/resource_quota_monitor.go); without this recount the sim
   * would refuse them for good, since no write of the kind could get in to move the count.
   */
  observeCustomResourceDefinition(crd: SimObject): void {
    const group = (crd.spec as Json | undefined)?.group;
    if (typeof group !== 'string') return;
    const suffix = `.${group}`;
    for (const stored of this.store.storedIn(this.quotas)) {
      const quota = storedQuota(stored);
      const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
      if (!Object.keys(hard).some((name) => name.startsWith('count/') && name.endsWith(suffix))) continue;
      const ns = quota.metadata.namespace!;
      this.tallies.delete(ns);
      this.queue.add(ns, 0);
    }
  }

  /**
   * How long a namespace's changed usage waits for its write: WRITE_DELAY_MS, and at least until WRITE_INTERVAL_MS
   * after this controller last wrote a quota of the namespace, so a long burst costs a few writes a second.
   */
  private writeDelay(ns: string): number {
    const last = this.lastWrite.get(ns);
    return last === undefined ? WRITE_DELAY_MS : Math.max(WRITE_DELAY_MS, last + WRITE_INTERVAL_MS - Date.now());
  }

  /**
   * A quota came, went or changed. A new spec, or quotas coming and going (quotas count quotas), means a full count of
   * the namespace's tallies at once, so status.hard carries a new or raised limit within a turn of the event loop, as
   * kube's controller queues a quota on its add and on an update of spec.hard. A status write alone (admission's, this
   * controller's, a client's) queues nothing, as in kube (resource_quota_controller.go, UpdateFunc): the next change of
   * what the quota counts puts the running usage back, or else the periodic resync (resyncAll).
   */
  private observeQuota(change: Change, ns: string): void {
    const tallies = this.tallies.get(ns);
    if (change.type === 'MODIFIED' && tallies) {
      const tally = tallies.get(change.cur.meta.name);
      // A status write (admission's, most often: one per batch of creates) cannot change the spec: no parse needed.
      if (change.statusOnly && tally && tally.uid === change.cur.meta.uid) return;
      const quota = storedQuota(change.cur);
      if (tally && tally.uid === (quota.metadata.uid ?? '') && tally.spec === countingSpec(quota)) return;
    }
    this.tallies.delete(ns);
    this.queue.add(ns, 0);
  }

  private sync(namespace: string): void {
    const { store } = this;
    const stored = store.storedIn(this.quotas, namespace);
    if (stored.length === 0) { this.tallies.delete(namespace); this.lastWrite.delete(namespace); return; }
    let tallies = this.tallies.get(namespace);
    if (!tallies) this.tallies.set(namespace, tallies = new Map());
    for (const storedObject of stored) {
      const quota = storedQuota(storedObject);
      const name = quota.metadata.name!;
      let tally = tallies.get(name);
      if (!tally || tally.uid !== (quota.metadata.uid ?? '') || tally.spec !== countingSpec(quota)) {
        this.fullCounts++;
        tally = countedTally(store, namespace, quota);
        tallies.set(name, tally);
      }
      const status = { hard: { ...tally.hard }, used: formatUsage(tally.used) };
      if (jsonEqual(quota.status ?? {}, status)) continue;
      // Set first: the write's own change event queues the next sync, which must already wait its turn.
      this.lastWrite.set(namespace, Date.now());
      store.updateObject(this.quotas, { ...quota, status }, { subresource: 'status', ...writtenBy(this.quotas, CONTROLLER_MANAGER, 'status') });
    }
    for (const name of tallies.keys()) if (!stored.some((s) => s.meta.name === name)) tallies.delete(name);
  }
}
