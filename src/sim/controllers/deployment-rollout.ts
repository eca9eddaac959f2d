// The arithmetic of a Deployment rollout (kube's pkg/controller/deployment/util): surge and unavailability budgets,
// how far the new ReplicaSet may grow, which old ones may shrink, and proportional scaling.
import type { SimObject } from '../api.js';
import { specReplicas } from './replicaset-controller.js';

type Json = Record<string, any>;

export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const REVISION = 'deployment.kubernetes.io/revision';

export function isRollingUpdate(d: SimObject): boolean {
  return ((d.spec as Json | undefined)?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** intstr.GetScaledValueFromIntOrPercent; apps/v1 defaults both budgets to 25%. */
export function scaledValue(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v ?? '25%'));
  if (!m) return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Math.floor(total / 4);
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** ResolveFenceposts: surge rounds up, unavailability down; both zero would deadlock, so unavailability becomes 1. */
export function fenceposts(d: SimObject): { maxSurge: number; maxUnavailable: number } {
  const rolling = ((d.spec as Json | undefined)?.strategy?.rollingUpdate ?? {}) as Json;
  const desired = specReplicas(d);
  const maxSurge = scaledValue(rolling.maxSurge, desired, true);
  let maxUnavailable = scaledValue(rolling.maxUnavailable, desired, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

export function maxSurge(d: SimObject): number {
  return isRollingUpdate(d) ? fenceposts(d).maxSurge : 0;
}

export function maxUnavailable(d: SimObject): number {
  const desired = specReplicas(d);
  if (!isRollingUpdate(d) || desired === 0) return 0;
  return Math.min(fenceposts(d).maxUnavailable, desired);
}

export const sumSpec = (rss: SimObject[]): number => rss.reduce((n, rs) => n + specReplicas(rs), 0);
export const sumStatus = (rss: SimObject[], field: 'replicas' | 'readyReplicas' | 'availableReplicas'): number =>
  rss.reduce((n, rs) => n + Number((rs.status as Json | undefined)?.[field] ?? 0), 0);
export const statusOf = (rs: SimObject | undefined, field: 'replicas' | 'readyReplicas' | 'availableReplicas'): number =>
  Number((rs?.status as Json | undefined)?.[field] ?? 0);

/** NewRSNewReplicas: how big the new ReplicaSet may be now without exceeding desired + maxSurge pods in total. */
export function newRSNewReplicas(d: SimObject, allRSs: SimObject[], newRS: SimObject): number {
  const desired = specReplicas(d);
  if (!isRollingUpdate(d)) return desired;
  const current = sumSpec(allRSs);
  const maxTotal = desired + scaledValue(((d.spec as Json).strategy?.rollingUpdate ?? {}).maxSurge, desired, true);
  if (current >= maxTotal) return specReplicas(newRS);
  return specReplicas(newRS) + Math.min(maxTotal - current, desired - specReplicas(newRS));
}

export function annotation(obj: SimObject, key: string): string | undefined {
  return obj.metadata.annotations?.[key];
}

export function revisionOf(rs: SimObject): number {
  const v = Number(annotation(rs, REVISION) ?? 0);
  return Number.isFinite(v) ? v : 0;
}

/** IsSaturated: the new ReplicaSet has, wants and makes available exactly the desired replicas. */
export function isSaturated(d: SimObject, rs: SimObject | undefined): boolean {
  if (!rs) return false;
  const desired = specReplicas(d);
  return specReplicas(rs) === desired && Number(annotation(rs, DESIRED_REPLICAS)) === desired && statusOf(rs, 'availableReplicas') === desired;
}

export const active = (rss: SimObject[]): SimObject[] => rss.filter((rs) => specReplicas(rs) > 0);

export const byCreation = (a: SimObject, b: SimObject): number =>
  (Date.parse(a.metadata.creationTimestamp ?? '') || 0) - (Date.parse(b.metadata.creationTimestamp ?? '') || 0) || (a.metadata.name! < b.metadata.name! ? -1 : 1);

/**
 * Proportional scaling (kube's scale() for a rolling Deployment resized mid-rollout): each active ReplicaSet gets
 * its share of the change by the ratio of the new to the old max-replicas, the rest goes to the largest one.
 * Answers the new size of each ReplicaSet, by name.
 */
export function proportionalSizes(d: SimObject, activeRSs: SimObject[]): Map<string, number> {
  const desired = specReplicas(d);
  const allowed = desired > 0 ? desired + maxSurge(d) : 0;
  const toAdd = allowed - sumSpec(activeRSs);
  const sizes = new Map<string, number>();
  // Larger first; among equals newer first when growing, older first when shrinking.
  const sorted = [...activeRSs].sort((a, b) => specReplicas(b) - specReplicas(a) || (toAdd > 0 ? -byCreation(a, b) : byCreation(a, b)));
  let added = 0;
  for (const rs of sorted) {
    if (toAdd === 0) { sizes.set(rs.metadata.name!, specReplicas(rs)); continue; }
    const part = proportion(d, rs, toAdd, added);
    sizes.set(rs.metadata.name!, specReplicas(rs) + part);
    added += part;
  }
  if (sorted.length && toAdd !== 0) {
    const first = sorted[0].metadata.name!;
    sizes.set(first, Math.max(0, sizes.get(first)! + toAdd - added));
  }
  return sizes;
}

function proportion(d: SimObject, rs: SimObject, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const desired = specReplicas(d);
  let fraction: number;
  if (desired === 0) {
    fraction = -specReplicas(rs);
  } else {
    const maxNow = desired + maxSurge(d);
    let maxBefore = Number(annotation(rs, MAX_REPLICAS) ?? 0);
    if (!maxBefore) maxBefore = Number((d.status as Json | undefined)?.replicas ?? 0);
    fraction = maxBefore ? Math.round((specReplicas(rs) * maxNow) / maxBefore) - specReplicas(rs) : 0;
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}
