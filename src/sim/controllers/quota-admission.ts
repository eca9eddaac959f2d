// The ResourceQuota admission plugin: a create (or a claim's or service's update) that would take a namespace past a
// quota's spec.hard is refused with kube's 403 "exceeded quota: NAME, requested: …, used: …, limited: …"; a pod
// without a request or limit that a quota limits gets "failed quota: NAME: must specify …". An admitted write
// updates the quotas' status.used at once, as kube's admission does (the quota controller recounts after), and reads
// usage from status.used, so a write into a quota'd namespace costs the same however many objects it holds.
// Namespaces without a ResourceQuota cost one sorted-key lookup per write.
import type { SimObject } from '../api.js';
import { SimApiError } from '../api.js';
import { addQuantities, formatQuantity, parseQuantity, ZERO, type Quantity } from '../kinds/quantity.js';
import { qualifiedResource } from '../status.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { inScope, missingPodResources, MUST_SPECIFY, namespaceUsage, usageOf } from './quota-usage.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** Kinds whose updates quota evaluates (kube: claims may grow, services may change type); other kinds only on create. */
const UPDATE_EVALUATED = new Set(['persistentvolumeclaims', 'services']);

/** quota.prettyPrint: "name=value" pairs sorted by name, comma-separated. */
function pretty(values: Record<string, Quantity>): string {
  return Object.keys(values).sort().map((k) => `${k}=${formatQuantity(values[k])}`).join(',');
}

function forbidden(type: ResourceType, name: string, why: string): SimApiError {
  const details: Record<string, unknown> = { name, ...(type.group ? { group: type.group } : {}), kind: type.resource };
  const what = qualifiedResource(type.resource, type.group);
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${name ? `${what} "${name}"` : what} is forbidden: ${why}`, reason: 'Forbidden', details, code: 403 });
}

export class QuotaAdmission {
  private readonly quotas: ResourceType;

  constructor(private readonly store: SimStore) {
    this.quotas = store.resolve({ group: '', version: 'v1', resource: 'resourcequotas' });
  }

  /** The store's hook: throws kube's 403 to refuse `next`; `prev` is the stored object on update. */
  admit(type: ResourceType, next: SimObject, prev: SimObject | undefined, dryRun: boolean): void {
    if (!type.namespaced || type === this.quotas) return;
    const namespace = next.metadata.namespace!;
    const quotas = this.store.storedIn(this.quotas, namespace);
    if (quotas.length === 0) return;
    if (prev && (type.group !== '' || !UPDATE_EVALUATED.has(type.resource))) return;
    const admitted: { quota: SimObject; used: Record<string, Quantity> }[] = [];
    // In name order (storage key order), so the first quota a write exceeds is the one named.
    for (const stored of quotas) {
      const quota = stored.obj;
      if (!inScope(quota, type, next)) continue;
      const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
      const restricted = Object.keys(hard).filter((name) => usageOf(type, next, name) !== undefined);
      if (restricted.length === 0) continue;
      if (type.group === '' && type.resource === 'pods') this.checkConstraints(type, next, quota, restricted);
      const requested: Record<string, Quantity> = {};
      for (const name of restricted) {
        const add = usageOf(type, next, name) ?? ZERO;
        const sub = prev ? usageOf(type, prev, name) ?? ZERO : ZERO;
        if (add.milli !== sub.milli) requested[name] = { milli: add.milli - sub.milli, binary: add.binary || sub.binary };
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

  /**
   * What the quota has used of `names`: its status.used, as kube's admission reads it (admission keeps it current on
   * every admitted write; the controller catches up on deletes within milliseconds), else — a quota the controller
   * has not counted yet — counted now.
   */
  private usedOf(quota: SimObject, names: string[], namespace: string): Record<string, Quantity> {
    const recorded = ((quota.status as Json | undefined)?.used ?? {}) as Record<string, unknown>;
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

  /** status.used as admission leaves it: the new usage of what it counted, the rest as the controller last wrote it. */
  private recordUsage(quota: SimObject, used: Record<string, Quantity>): void {
    const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
    const status = { hard: { ...hard }, used: { ...((quota.status as Json | undefined)?.used ?? {}) } };
    for (const [name, q] of Object.entries(used)) status.used[name] = formatQuantity(q);
    try {
      this.store.updateObject(this.quotas, { ...quota, status }, { subresource: 'status', ...writtenBy(this.quotas, CONTROLLER_MANAGER, 'status') });
    } catch {
      // The quota changed meanwhile: the controller recounts it.
    }
  }
}
