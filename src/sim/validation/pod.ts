// Pod validation (core/validation ValidatePodCreate, ValidatePodUpdate): a pod's spec is fixed once created, but for
// the few fields kube lets an update change.
import type { FieldError } from '../status.js';
import { clone, jsonEqual } from '../object-meta.js';
import { validatePodSpec } from './pod-spec.js';

type Json = Record<string, unknown>;

/** kube 1.32's list (InPlacePodVerticalScaling is off by default, so resources are not in it). */
const UPDATABLE = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

/** What the API server's defaulting adds to a pod spec a client sends without them (the sim's create defaults). */
const SPEC_DEFAULTS: Json = { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {} };

export function validatePodCreate(pod: Json): FieldError[] {
  return validatePodSpec(pod.spec as Json | undefined, 'spec');
}

function containersOf(spec: Json, key: string): Json[] {
  return Array.isArray(spec[key]) ? spec[key] as Json[] : [];
}

function activeDeadlineErrors(next: unknown, old: unknown): FieldError[] {
  if (typeof old !== 'number') return [];
  if (next === undefined || next === null) return [{ field: 'spec.activeDeadlineSeconds', type: 'Forbidden', detail: 'must not update from a positive integer to nil value' }];
  if (typeof next === 'number' && next > old) return [{ field: 'spec.activeDeadlineSeconds', type: 'Invalid value', value: next, detail: 'must be less than or equal to previous value' }];
  return [];
}

/** Every old toleration must still be there (its tolerationSeconds may change). */
function tolerationErrors(next: unknown, old: unknown): FieldError[] {
  const nextList = Array.isArray(next) ? next as Json[] : [];
  for (const o of Array.isArray(old) ? old as Json[] : []) {
    const kept = nextList.some((n) => jsonEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n));
    if (!kept) return [{ field: 'spec.tolerations', type: 'Forbidden', detail: 'existing toleration can not be modified except its tolerationSeconds' }];
  }
  return [];
}

const goFieldName = (k: string): string => k.charAt(0).toUpperCase() + k.slice(1);

/**
 * The changed fields, shaped like the cmp.Diff of core.PodSpec kube appends (Go field names; values as JSON, where
 * kube prints Go values).
 */
function specDiff(old: Json, next: Json): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].filter((k) => !jsonEqual(old[k], next[k]));
  const lines = keys.flatMap((k) => [`- \t${goFieldName(k)}: ${JSON.stringify(old[k] ?? null)},`, `+ \t${goFieldName(k)}: ${JSON.stringify(next[k] ?? null)},`]);
  return ['  core.PodSpec{', ...lines, '  }'].join('\n');
}

export function validatePodUpdate(next: Json, prev: Json): FieldError[] {
  const spec = { ...SPEC_DEFAULTS, ...((next.spec ?? {}) as Json) };
  for (const k of Object.keys(SPEC_DEFAULTS)) if (spec[k] === undefined || spec[k] === null) spec[k] = SPEC_DEFAULTS[k];
  const old = (prev.spec ?? {}) as Json;
  for (const key of ['containers', 'initContainers']) {
    if (containersOf(spec, key).length !== containersOf(old, key).length) {
      return [{ field: `spec.${key}`, type: 'Forbidden', detail: 'pod updates may not add or remove containers' }];
    }
  }
  const errs: FieldError[] = [];
  for (const key of ['containers', 'initContainers']) {
    containersOf(spec, key).forEach((c, i) => {
      if (typeof c?.image !== 'string' || c.image === '') errs.push({ field: `spec.${key}[${i}].image`, type: 'Required value', detail: '' });
    });
  }
  errs.push(...activeDeadlineErrors(spec.activeDeadlineSeconds, old.activeDeadlineSeconds));
  errs.push(...tolerationErrors(spec.tolerations, old.tolerations));
  // The spec with what may change put back to the stored values must equal the stored spec.
  const munged = clone(spec);
  for (const key of ['containers', 'initContainers']) {
    const olds = containersOf(old, key);
    if (olds.length) munged[key] = containersOf(munged, key).map((c, i) => ({ ...c, image: olds[i].image }));
  }
  munged.activeDeadlineSeconds = old.activeDeadlineSeconds;
  munged.tolerations = old.tolerations;
  const oldGrace = old.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace;
  if (!jsonEqual(munged, old)) {
    errs.push({ field: 'spec', type: 'Forbidden', detail: `pod updates may not change fields other than ${UPDATABLE}\n${specDiff(old, munged)}` });
  }
  return errs;
}
