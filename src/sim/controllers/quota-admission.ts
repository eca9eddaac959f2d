// The ResourceQuota admission plugin: a create (or a claim's or service's update) that would take a namespace past a
// quota's spec.hard is refused with kube's 403 "exceeded quota: NAME, requested: …, used: …, limited: …"; a pod
// without a request or limit that a quota limits gets "failed quota: NAME: must specify …". An admitted write
// updates the quotas' status.used before it is answered, as kube's admission does (the quota controller recounts
// after), and reads usage from status.used, so a write into a quota'd namespace costs the same however many objects
// it holds. Writes admitted together share one status update per quota, as in kube, whose quota evaluator takes every
// admission waiting for a namespace, checks them one after another against a copy of the quotas, and updates each
// changed quota once for all of them (quotaEvaluator.checkQuotas in
// staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go). Here the check is at once, against
// the usage of the writes already admitted (pending below), so a write that would exceed the quota is refused with
// kube's 403 however many others race it; the status update follows in the same turn of the event loop, and the
// HTTP handlers wait for it (SimStore.admissionWrites) before they answer, so status.used is right once a write is
// answered. Namespaces without a ResourceQuota cost one sorted-key lookup per write.
import type { SimObject } from '../api.js';
import type { StoredObject } from '../history.js';
import { SimApiError } from '../api.js';
import { addQuantities, formatQuantity, parseQuantity, ZERO, type Quantity } from '../kinds/quantity.js';
import { qualifiedResource } from '../status.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { countsKind, inScope, isTerminating, missingPodResources, MUST_SPECIFY, namespaceUsage, storedQuota, usageOf } from './quota-usage.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** Kinds whose updates quota evaluates (kube: claims may grow, services may change type); other kinds only on create. */
const UPDATE_EVALUATED = new Set(['persistentvolumeclaims', 'services']);

/**
 * Whether quota evaluates an update: claims and services always; a pod written through pods/NAME/resize (its requests
 * and limits change in place), or a main-path update that moves it in or out of the Terminating scope (its
 * activeDeadlineSeconds), as kube's pod evaluator handles them (pkg/quota/v1/evaluator/core/pods.go, Handles).
 */
function updateEvaluated(type: ResourceType, next: SimObject, prev: SimObject, through: string | undefined): boolean {
  if (type.group !== '') return false;
  if (UPDATE_EVALUATED.has(type.resource)) return true;
  if (type.resource !== 'pods') return false;
  if (through === 'resize') return true;
  return through === undefined && isTerminating(prev) !== isTerminating(next);
}

/** quota.prettyPrint: "name=value" pairs sorted by name, comma-separated. */
function pretty(values: Record<string, Quantity>): string {
  return Object.keys(values).sort().map((k) => `${k}=${formatQuantity(values[k])}`).join(',');
}

function forbidden(type: ResourceType, name: string, why: string): SimApiError {
  const details: Record<string, unknown> = { name, ...(type.group ? { group: type.group } : {}), kind: type.resource };
  const what = qualifiedResource(type.resource, type.group);
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${name ? `${what} "${name}"` : what} is forbidden: ${why}`, reason: 'Forbidden', details, code: 403 });
}

/** A quota's status.used as admission left it, not yet written: valid while the quota is still at `base`. */
interface PendingUsage {
  namespace: string;
  name: string;
  /** The quota's resourceVersion the usage was counted from: a newer write (the controller's) supersedes it. */
  base: string | undefined;
  used: Record<string, unknown>;
}

/** Per stored quota version and kind: the hard names that count objects of that kind (usageOf answers for them). */
const restrictedByQuota = new WeakMap<StoredObject, Map<ResourceType, string[]>>();

/**
 * The quota's hard names that objects of `type` count toward, worked out once per stored quota version and kind, so
 * a write of a kind the quota does not count (an Event, say) neither parses the quota nor matches its names.
 */
function restrictedNames(stored: StoredObject, type: ResourceType): string[] {
  let byType = restrictedByQuota.get(stored);
  if (!byType) restrictedByQuota.set(stored, byType = new Map());
  let names = byType.get(type);
  if (!names) {
    const hard = ((storedQuota(stored).spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
    names = Object.keys(hard).filter((name) => countsKind(type, name));
    byType.set(type, names);
  }
  return names;
}

export class QuotaAdmission {
  private readonly quotas: ResourceType;
  /** Usage admitted since the last status write, by quota (namespace/name). */
  private readonly pending = new Map<string, PendingUsage>();
  /** Resolves once the pending usage is written (one turn of the event loop after the first admission). */
  private written: Promise<void> | undefined;

  constructor(private readonly store: SimStore) {
    this.quotas = store.resolve({ group: '', version: 'v1', resource: 'resourcequotas' });
  }

  /**
   * The store's hook: throws kube's 403 to refuse `next`; `prev` is the stored object on update, `through` the
   * subresource the client wrote through.
   */
  admit(type: ResourceType, next: SimObject, prev: SimObject | undefined, dryRun: boolean, through?: string): void {
    // A ResourceQuota's own create counts too (`resourcequotas` in spec.hard): kube's admission ignores only events and
    // the virtual review kinds (pkg/quota/v1/install/registry.go). Its status writes are updates, not evaluated below.
    if (!type.namespaced) return;
    // An update of any other kind is not evaluated at all (kube's evaluators handle only creates of them), so it
    // costs nothing here: no quota is read.
    if (prev && !updateEvaluated(type, next, prev, through)) return;
    const namespace = next.metadata.namespace!;
    const quotas = this.store.storedIn(this.quotas, namespace);
    if (quotas.length === 0) return;
    const admitted: { quota: SimObject; used: Record<string, Quantity> }[] = [];
    // In name order (storage key order), so the first quota a write exceeds is the one named.
    for (const stored of quotas) {
      const restricted = restrictedNames(stored, type);
      if (restricted.length === 0) continue;
      const quota = storedQuota(stored);
      if (!inScope(quota, type, next)) continue;
      const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
      if (type.group === '' && type.resource === 'pods') this.checkConstraints(type, next, quota, restricted);
      const requested: Record<string, Quantity> = {};
      // An update is charged its increase only where the quota tracked the old object too; one that moves into a
      // quota's scope is charged in full, as kube's CheckRequest matches the old object per quota.
      const before = prev && inScope(quota, type, prev) ? prev : undefined;
      for (const name of restricted) {
        const add = usageOf(type, next, name) ?? ZERO;
        const sub = before ? usageOf(type, before, name) ?? ZERO : ZERO;
        // Only an increase is charged: kube's CheckRequest takes SubtractWithNonNegativeResult(new, old), so an update
        // that lowers usage writes nothing and the controller's recount lowers status.used
        // (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go). Quantity.Sub keeps the
        // format of the new usage (add is not zero here).
        if (add.milli > sub.milli) requested[name] = { milli: add.milli - sub.milli, binary: add.binary };
      }
      if (Object.keys(requested).length === 0) continue;
      const used = this.usedOf(quota, Object.keys(requested), namespace);
      const exceeded = Object.keys(requested).filter((name) => {
        const limit = parseQuantity(hard[name]);
        return limit !== undefined && addQuantities(used[name] ?? ZERO, requested[name]).milli > limit.milli;
      });
      if (exceeded.length) {
        const pick = (from: Record<string, Quantity>): Record<string, Quantity> => Object.fromEntries(exceeded.map((n) => [n, from[n] ?? ZERO]));
        const limited = Object.fromEntries(exceeded.map((n) => [n, parseQuantity(hard[n])!]));
        throw forbidden(type, next.metadata.name ?? '', `exceeded quota: ${quota.metadata.name}, requested: ${pretty(pick(requested))}, used: ${pretty(pick(used))}, limited: ${pretty(limited)}`);
      }
      for (const name of Object.keys(requested)) used[name] = addQuantities(used[name] ?? ZERO, requested[name]);
      admitted.push({ quota, used });
    }
    if (!dryRun) for (const { quota, used } of admitted) this.recordUsage(quota, used);
  }

  /** Undefined when every admitted write's usage is stored, else a promise resolved once it is. */
  pendingWrites(): Promise<void> | undefined {
    return this.written;
  }

  /** Writes each quota's pending usage: one status update per quota for all the writes admitted since the last. */
  flush(): void {
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (const p of batch) {
      const quota = this.store.get(this.quotas, p.namespace, p.name);
      // Changed since (the controller wrote a newer status.used, counted from the stored objects, these included): it stands.
      if (!quota || quota.metadata.resourceVersion !== p.base) continue;
      const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
      try {
        this.store.updateObject(this.quotas, { ...quota, status: { hard: { ...hard }, used: p.used } }, { subresource: 'status', ...writtenBy(this.quotas, CONTROLLER_MANAGER, 'status') });
      } catch {
        // The quota changed meanwhile: the controller recounts it.
      }
    }
  }

  /**
   * What the quota has used of `names`: its status.used, as kube's admission reads it (admission keeps it current on
   * every admitted write; the controller catches up on deletes within milliseconds), else — a quota the controller
   * has not counted yet — counted now.
   */
  private usedOf(quota: SimObject, names: string[], namespace: string): Record<string, Quantity> {
    const recorded = this.pendingOf(quota)?.used ?? (((quota.status as Json | undefined)?.used ?? {}) as Record<string, unknown>);
    const used: Record<string, Quantity> = {};
    for (const name of names) {
      const q = parseQuantity(recorded[name]);
      if (!q) return namespaceUsage(this.store, namespace, quota);
      used[name] = q;
    }
    return used;
  }

  /** kube's podEvaluator.Constraints: every container must request (or limit) what a quota limits of cpu and memory. */
  private checkConstraints(type: ResourceType, pod: SimObject, quota: SimObject, restricted: string[]): void {
    const required = restricted.filter((n) => MUST_SPECIFY.includes(n));
    if (required.length === 0) return;
    const missing = missingPodResources(pod, required);
    if (missing.size === 0) return;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    throw forbidden(type, pod.metadata.name ?? '', `failed quota: ${quota.metadata.name}: must specify ${parts.join('; ')}`);
  }

  /** The usage admitted into `quota` and not yet written, while the stored quota is still the one it was counted from. */
  private pendingOf(quota: SimObject): PendingUsage | undefined {
    const p = this.pending.get(`${quota.metadata.namespace}/${quota.metadata.name}`);
    return p && p.base === quota.metadata.resourceVersion ? p : undefined;
  }

  /**
   * status.used as admission leaves it — the new usage of what it counted, the rest as the controller last wrote it —
   * kept pending and written with the other writes admitted in this turn of the event loop.
   */
  private recordUsage(quota: SimObject, used: Record<string, Quantity>): void {
    const key = `${quota.metadata.namespace}/${quota.metadata.name}`;
    const p: PendingUsage = this.pendingOf(quota) ?? { namespace: quota.metadata.namespace!, name: quota.metadata.name!, base: quota.metadata.resourceVersion, used: { ...((quota.status as Json | undefined)?.used ?? {}) } };
    for (const [name, q] of Object.entries(used)) p.used[name] = formatQuantity(q);
    this.pending.set(key, p);
    this.written ??= new Promise((resolve) => {
      setImmediate(() => {
        this.written = undefined;
        this.flush();
        resolve();
      });
    });
  }
}
