// The ResourceQuota admission plugin: a create (or a claim's or service's update) that would take a namespace past a
// quota's status.hard (the limits the quota controller last copied from spec.hard) is refused with kube's 403
// "exceeded quota: NAME, requested: …, used: …, limited: …"; a pod without a request or limit that a quota limits gets
// "failed quota: NAME: must specify …", and a write a quota limits while its status.used lacks a name it limits gets
// "status unknown for quota: NAME, resources: …". An admitted write
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
import { groupVersion, type ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { updateKeepsEntries } from '../managed-fields/update-keeps-entries.js';
import { countsKind, inScope, isTerminating, meetsRequirements, missingPodResources, MUST_SPECIFY, rememberQuota, requirement, storedQuota, usageOf, type Requirement } from './quota-usage.js';
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

/**
 * A quota's status.used as admission left it, not yet written: valid while the quota is still at `base`. What admission
 * changed is kept as quantities and printed once, when written: the totals are new strings on every write, so printing
 * them and parsing them back on each admission cost more than the check itself.
 */
interface PendingUsage {
  namespace: string;
  name: string;
  /** The quota's resourceVersion the usage was counted from: a newer write (the controller's) supersedes it. */
  base: string | undefined;
  /** status.used as stored at `base`. */
  recorded: Record<string, unknown>;
  /** The names admission changed since `base`, with their new totals. */
  changed: Map<string, Quantity>;
}

/** What admission reads of one stored quota version for one kind. */
interface QuotaPlan {
  /** The quota's hard names that count objects of the kind (usageOf answers for them). */
  restricted: string[];
  /** Their limits, parsed (undefined: a limit that does not parse, which nothing exceeds). */
  limits: Map<string, Quantity | undefined>;
  /** For pods: what every container must state (kube's podEvaluator.Constraints). */
  required: Requirement[];
}

const NO_PLAN: QuotaPlan = { restricted: [], limits: new Map(), required: [] };

/** Per stored quota version and kind (a version is never changed: each write stores a new one). */
const plans = new WeakMap<StoredObject, Map<ResourceType, QuotaPlan>>();

/**
 * The quota's plan for objects of `type`, worked out once per stored quota version and kind, so a write of a kind the
 * quota does not count (an Event, say) neither parses the quota nor matches its names, and a pod's create reads no
 * limit string.
 */
function planFor(stored: StoredObject, type: ResourceType): QuotaPlan {
  let byType = plans.get(stored);
  if (!byType) plans.set(stored, byType = new Map());
  let plan = byType.get(type);
  if (!plan) {
    // status.hard, not spec.hard: kube's CheckRequest limits a write by what the quota controller last copied from the
    // spec, so a raised (or newly set) limit binds only once the controller has synced it, and a quota it has not
    // synced yet (no status.hard) restricts nothing
    // (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).
    const hard = statusHard(storedQuota(stored));
    const restricted = Object.keys(hard).filter((name) => countsKind(type, name));
    const pods = type.group === '' && type.resource === 'pods';
    plan = restricted.length === 0 ? NO_PLAN : {
      restricted,
      limits: new Map(restricted.map((name) => [name, parseQuantity(hard[name])])),
      required: pods ? restricted.filter((n) => MUST_SPECIFY.includes(n)).map(requirement) : [],
    };
    byType.set(type, plan);
  }
  return plan;
}

/**
 * Per stored quota version: whether admission's status write (new values for names status.used already has) leaves
 * metadata.managedFields as stored, so the write may skip the field manager (see updateKeepsEntries).
 */
const keepsFields = new WeakMap<StoredObject, boolean>();

function usedOfStatus(quota: SimObject): Record<string, unknown> {
  return ((quota.status as Json | undefined)?.used ?? {}) as Record<string, unknown>;
}

/** The limits admission enforces: the quota's status.hard, as the quota controller last wrote it. */
function statusHard(quota: SimObject): Record<string, unknown> {
  return ((quota.status as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
}

export class QuotaAdmission {
  private readonly quotas: ResourceType;
  /** Usage admitted since the last status write, by quota (its storage key, namespace/name). */
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
    // A ResourceQuota's own create counts too (`resourcequotas` in status.hard): kube's admission ignores only events and
    // the virtual review kinds (pkg/quota/v1/install/registry.go). Its status writes are updates, not evaluated below.
    if (!type.namespaced) return;
    // An update of any other kind is not evaluated at all (kube's evaluators handle only creates of them), so it
    // costs nothing here: no quota is read.
    if (prev && !updateEvaluated(type, next, prev, through)) return;
    const namespace = next.metadata.namespace!;
    const quotas = this.store.storedIn(this.quotas, namespace);
    if (quotas.length === 0) return;
    // First every quota that limits the write states its constraints and has usage for what it limits, then the
    // charges, as kube's CheckRequest runs those checks over all the matching quotas before any usage: a "must specify"
    // or "status unknown" of one quota comes before another's "exceeded quota". In name order (storage key order), so
    // the first quota a write fails is the one named.
    let matching: { stored: StoredObject; quota: SimObject; plan: QuotaPlan }[] | undefined;
    for (const stored of quotas) {
      const plan = planFor(stored, type);
      if (plan.restricted.length === 0) continue;
      const quota = storedQuota(stored);
      if (!inScope(quota, type, next)) continue;
      if (plan.required.length > 0 && !meetsRequirements(next, plan.required)) this.refuseUnspecified(type, next, quota, plan.restricted);
      this.requireUsage(type, next, stored, quota, plan.restricted);
      (matching ??= []).push({ stored, quota, plan });
    }
    if (!matching) return;
    let admitted: { stored: StoredObject; quota: SimObject; used: Map<string, Quantity> }[] | undefined;
    for (const { stored, quota, plan } of matching) {
      let requested: Map<string, Quantity> | undefined;
      // An update is charged its increase only where the quota tracked the old object too; one that moves into a
      // quota's scope is charged in full, as kube's CheckRequest matches the old object per quota.
      const before = prev && inScope(quota, type, prev) ? prev : undefined;
      for (const name of plan.restricted) {
        const add = usageOf(type, next, name) ?? ZERO;
        const sub = before ? usageOf(type, before, name) ?? ZERO : ZERO;
        // Only an increase is charged: kube's CheckRequest takes SubtractWithNonNegativeResult(new, old), so an update
        // that lowers usage writes nothing and the controller's recount lowers status.used
        // (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go). Quantity.Sub keeps the
        // format of the new usage (add is not zero here).
        if (add.milli > sub.milli) (requested ??= new Map()).set(name, sub === ZERO ? add : { milli: add.milli - sub.milli, binary: add.binary });
      }
      if (!requested) continue;
      const used = this.usedOf(stored, quota, requested);
      let exceeded: string[] | undefined;
      for (const [name, q] of requested) {
        const limit = plan.limits.get(name);
        if (limit !== undefined && (used.get(name) ?? ZERO).milli + q.milli > limit.milli) (exceeded ??= []).push(name);
      }
      if (exceeded) {
        const pick = (from: (n: string) => Quantity | undefined): Record<string, Quantity> => Object.fromEntries(exceeded.map((n) => [n, from(n) ?? ZERO]));
        throw forbidden(type, next.metadata.name ?? '', `exceeded quota: ${quota.metadata.name}, requested: ${pretty(pick((n) => requested.get(n)))}, used: ${pretty(pick((n) => used.get(n)))}, limited: ${pretty(pick((n) => plan.limits.get(n)))}`);
      }
      for (const [name, q] of requested) used.set(name, addQuantities(used.get(name) ?? ZERO, q));
      (admitted ??= []).push({ stored, quota, used });
    }
    if (admitted && !dryRun) for (const { stored, quota, used } of admitted) this.recordUsage(stored, quota, used);
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
      const stored = this.store.getStored(this.quotas, p.namespace, p.name);
      // Changed since (the controller wrote a newer status.used, counted from the stored objects, these included): it stands.
      if (!stored || String(stored.rv) !== p.base) continue;
      // The version admission read (parsed once, shared, never changed): the update copies what it changes.
      // Only status.used changes, as kube's admission writes it: status.hard stays what the controller last copied.
      const quota = storedQuota(stored);
      const used: Record<string, unknown> = { ...p.recorded };
      for (const [name, q] of p.changed) used[name] = formatQuantity(q);
      const keeps = this.keepsFields(stored, quota);
      try {
        const written = this.store.updateObject(this.quotas, { ...quota, status: { ...(quota.status as Json | undefined), used } }, { subresource: 'status', ...(keeps ? {} : writtenBy(this.quotas, CONTROLLER_MANAGER, 'status')) });
        this.carryOver(stored, written, keeps);
      } catch {
        // The quota changed meanwhile: the controller recounts it.
      }
    }
  }

  /**
   * Whether admission's write of `stored` may skip the field manager: kube-controller-manager's status entry (the
   * manager the sim's control plane writes quotas as) holds every name of status.used and no other entry holds one.
   * Worked out once per version the controller or a client wrote; admission's own writes carry it over.
   */
  private keepsFields(stored: StoredObject, quota: SimObject): boolean {
    let keeps = keepsFields.get(stored);
    if (keeps === undefined) {
      const paths = Object.keys(usedOfStatus(quota)).map((name) => ['f:status', 'f:used', `f:${name}`]);
      keeps = updateKeepsEntries(quota.metadata.managedFields, paths, { manager: CONTROLLER_MANAGER, operation: 'Update', apiVersion: groupVersion(this.quotas), subresource: 'status' });
      keepsFields.set(stored, keeps);
    }
    return keeps;
  }

  /**
   * What admission knows of the version it read holds for the version it wrote, which differs only in status.used's
   * values: its parse (the object the store answered, as kube's quotaAccessor keeps the quota its UpdateStatus returned
   * for the next evaluation: updatedQuotas in staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/
   * resource_access.go), its plans (status.hard and the spec are the same), and — when the field manager was skipped,
   * leaving managedFields as they were — that the next write may skip it too.
   */
  private carryOver(read: StoredObject, written: SimObject, keptFields: boolean): void {
    const next = this.store.getStored(this.quotas, written.metadata.namespace, written.metadata.name!);
    if (!next || next === read || String(next.rv) !== written.metadata.resourceVersion) return;
    rememberQuota(next, written);
    const plan = plans.get(read);
    if (plan) plans.set(next, plan);
    if (keptFields) keepsFields.set(next, true);
  }

  /**
   * What the quota has used of the requested names: its status.used, as kube's admission reads it (admission keeps it
   * current on every admitted write; the controller catches up on deletes within milliseconds). requireUsage has made
   * sure each name has an entry; one that does not parse counts as zero. A fresh map the caller may change.
   */
  private usedOf(stored: StoredObject, quota: SimObject, requested: Map<string, Quantity>): Map<string, Quantity> {
    const p = this.pendingOf(stored);
    const recorded = p?.recorded ?? usedOfStatus(quota);
    const used = new Map<string, Quantity>();
    for (const name of requested.keys()) used.set(name, p?.changed.get(name) ?? parseQuantity(recorded[name]) ?? ZERO);
    return used;
  }

  /**
   * kube's hasUsageStats: a write the quota restricts is refused while the quota's status.used lacks any of the names
   * it restricts (the controller has not counted them yet), with the 403 "status unknown for quota: NAME, resources:
   * R1,R2" naming them sorted — checked before the write's usage, so a write that would add nothing is refused too
   * (CheckRequest in staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).
   */
  private requireUsage(type: ResourceType, obj: SimObject, stored: StoredObject, quota: SimObject, restricted: string[]): void {
    const recorded = this.pendingOf(stored)?.recorded ?? usedOfStatus(quota);
    if (restricted.every((name) => recorded[name] !== undefined)) return;
    throw forbidden(type, obj.metadata.name ?? '', `status unknown for quota: ${quota.metadata.name}, resources: ${[...restricted].sort().join(',')}`);
  }

  /** kube's podEvaluator.Constraints failed: the 403 naming every container that lacks what a quota limits. */
  private refuseUnspecified(type: ResourceType, pod: SimObject, quota: SimObject, restricted: string[]): never {
    const missing = missingPodResources(pod, restricted.filter((n) => MUST_SPECIFY.includes(n)));
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    throw forbidden(type, pod.metadata.name ?? '', `failed quota: ${quota.metadata.name}: must specify ${parts.join('; ')}`);
  }

  /** The usage admitted into the quota and not yet written, while the stored quota is still the version it was counted from. */
  private pendingOf(stored: StoredObject): PendingUsage | undefined {
    const p = this.pending.get(stored.key);
    return p && p.base === String(stored.rv) ? p : undefined;
  }

  /**
   * status.used as admission leaves it — the new usage of what it counted, the rest as the controller last wrote it —
   * kept pending and written with the other writes admitted in this turn of the event loop.
   */
  private recordUsage(stored: StoredObject, quota: SimObject, used: Map<string, Quantity>): void {
    let p = this.pendingOf(stored);
    if (!p) {
      p = { namespace: quota.metadata.namespace!, name: quota.metadata.name!, base: String(stored.rv), recorded: usedOfStatus(quota), changed: new Map() };
      this.pending.set(stored.key, p);
    }
    for (const [name, q] of used) p.changed.set(name, q);
    this.written ??= new Promise((resolve) => {
      setImmediate(() => {
        this.written = undefined;
        this.flush();
        resolve();
      });
    });
  }
}
