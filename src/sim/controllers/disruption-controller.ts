// The disruption controller: each PodDisruptionBudget's status from the pods its selector matches — expected pods,
// healthy (ready, not terminating, not just evicted) pods, the healthy count the budget wants, and how many
// disruptions that allows now. The eviction subresource reads and spends disruptionsAllowed.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { labelSelectorFromObject, type LabelSelector } from '../label-selector.js';
import { jsonEqual, kubeTime } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import { splitKey, type ControllerContext } from './controller-context.js';
import { isActive, isReady } from './replicaset-controller.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** How long an evicted pod counts as disrupted while its deletion is under way (kube's DeletionTimeout: 2 min). */
const DISRUPTED_POD_TIMEOUT_MS = 2 * 60 * 1000;

/** intstr.GetScaledValueFromIntOrPercent, rounding up as the disruption controller does. */
export function scaledValue(v: unknown, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v));
  return m ? Math.ceil((Number(m[1]) * total) / 100) : Number(v) || 0;
}

export function pdbSelector(pdb: SimObject): LabelSelector | undefined {
  try {
    return labelSelectorFromObject((pdb.spec as Json | undefined)?.selector ?? {});
  } catch {
    return undefined;
  }
}

/** The budget's status for these pods (the matching ones), `now` deciding which disrupted pods still count. */
export function budgetStatus(pdb: SimObject, pods: SimObject[], now: number): Json {
  const spec = (pdb.spec ?? {}) as Json;
  const old = (pdb.status ?? {}) as Json;
  const active = pods.filter(isActive);
  const disrupted: Record<string, string> = {};
  for (const [name, at] of Object.entries((old.disruptedPods ?? {}) as Record<string, string>)) {
    const pod = active.find((p) => p.metadata.name === name);
    if (pod && pod.metadata.deletionTimestamp === undefined && Date.parse(at) + DISRUPTED_POD_TIMEOUT_MS > now) disrupted[name] = at;
  }
  const expected = active.length;
  const healthy = active.filter((p) => p.metadata.deletionTimestamp === undefined && isReady(p) && !(p.metadata.name! in disrupted)).length;
  let desired: number;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) desired = Math.max(0, expected - scaledValue(spec.maxUnavailable, expected));
  else if (spec.minAvailable !== undefined && spec.minAvailable !== null) desired = scaledValue(spec.minAvailable, expected);
  else desired = expected;
  const allowed = Math.max(0, healthy - desired);
  const reason = allowed > 0 ? 'SufficientPods' : 'InsufficientPods';
  const previous = ((old.conditions ?? []) as Json[]).find((c) => c.type === 'DisruptionAllowed');
  const condition = {
    type: 'DisruptionAllowed', status: allowed > 0 ? 'True' : 'False', observedGeneration: pdb.metadata.generation, reason,
    message: '', lastTransitionTime: previous && previous.reason === reason ? previous.lastTransitionTime : kubeTime(new Date(now)),
  };
  return {
    observedGeneration: pdb.metadata.generation, ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
    disruptionsAllowed: allowed, currentHealthy: healthy, desiredHealthy: desired, expectedPods: expected, conditions: [condition],
  };
}

export class DisruptionController {
  readonly queue: WorkQueue;
  readonly budgets: ResourceType;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
    this.budgets = ctx.store.resolve({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' });
  }

  observeBudget(change: Change): void {
    if (change.type !== 'DELETED') this.queue.add(change.key);
  }

  observePod(change: Change): void {
    const ns = change.cur.meta.namespace;
    for (const b of this.ctx.store.storedIn(this.budgets, ns)) this.queue.add(`${ns}/${b.meta.name}`);
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const { store, types } = this.ctx;
    const pdb = store.getStored(this.budgets, namespace, name)?.obj;
    if (!pdb) return;
    const selector = pdbSelector(pdb);
    const pods = selector ? store.storedIn(types.pods, namespace).filter((p) => selector.matches(p.meta.labels as Record<string, string> | undefined)).map((p) => p.obj) : [];
    const now = Date.now();
    const status = budgetStatus(pdb, pods, now);
    const old = (pdb.status ?? {}) as Json;
    if (!jsonEqual({ ...old, conditions: undefined }, { ...status, conditions: undefined }) || (old.conditions?.[0]?.reason !== status.conditions[0].reason)) {
      store.updateObject(this.budgets, { ...pdb, status }, { subresource: 'status', ...writtenBy(this.budgets, CONTROLLER_MANAGER, 'status') });
    }
    // Disrupted pods stop counting after the timeout: look again then.
    if (status.disruptedPods) this.queue.add(key, DISRUPTED_POD_TIMEOUT_MS);
  }
}
