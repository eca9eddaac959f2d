// What kube-apiserver does to a batch/v1 Job on create: SetDefaults_Job (parallelism/completions 1/1, backoffLimit 6,
// NonIndexed, suspend false, podReplacementPolicy, manualSelector false, labels from the template) and
// jobStrategy.PrepareForCreate's generateSelector (job-name / controller-uid labels on the template, legacy and
// batch.kubernetes.io/ ones, and a selector on the controller uid); status starts empty.
import type { SimObject } from './api.js';
import { invalid } from './status.js';

type Json = Record<string, any>;

/** batch.JobNameLabel / ControllerUidLabel and their legacy (unprefixed) forms, in generateSelector's order. */
export const JOB_NAME_LABELS = ['job-name', 'batch.kubernetes.io/job-name'];
export const CONTROLLER_UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';

/** JobSpec fields in Go struct order (the JSON kube writes). */
const SPEC_ORDER = ['parallelism', 'completions', 'activeDeadlineSeconds', 'podFailurePolicy', 'successPolicy', 'backoffLimit', 'backoffLimitPerIndex',
  'maxFailedIndexes', 'selector', 'manualSelector', 'template', 'ttlSecondsAfterFinished', 'completionMode', 'suspend', 'podReplacementPolicy', 'managedBy'];

export function isJobType(type: { group: string; resource: string }): boolean {
  return type.group === 'batch' && type.resource === 'jobs';
}

/** Applies defaults and the generated selector in place (obj has its uid); throws kube's 422 for a template kube rejects. */
export function prepareJobForCreate(obj: SimObject): void {
  const spec: Json = { ...((obj.spec as Json | undefined) ?? {}) };
  if (spec.completions == null && spec.parallelism == null) { spec.completions = 1; spec.parallelism = 1; }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy != null ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
  const template: Json = { ...((spec.template as Json | undefined) ?? {}) };
  const tmeta: Json = { ...((template.metadata as Json | undefined) ?? {}) };
  const restartPolicy = (template.spec as Json | undefined)?.restartPolicy;
  if (restartPolicy !== 'Never' && restartPolicy !== 'OnFailure') {
    const err = restartPolicy === undefined || restartPolicy === ''
      ? { field: 'spec.template.spec.restartPolicy', type: 'Required value' as const, detail: 'valid values: "OnFailure", "Never"' }
      : { field: 'spec.template.spec.restartPolicy', type: 'Unsupported value' as const, value: restartPolicy, detail: 'supported values: "OnFailure", "Never"' };
    throw invalid('Job', 'batch', obj.metadata.name ?? '', [err]);
  }
  if (spec.manualSelector !== true) {
    const labels: Record<string, string> = { ...((tmeta.labels as Record<string, string> | undefined) ?? {}) };
    for (const k of JOB_NAME_LABELS) labels[k] ??= obj.metadata.name!;
    for (const k of CONTROLLER_UID_LABELS) labels[k] ??= obj.metadata.uid!;
    tmeta.labels = labels;
    const selector: Json = { ...((spec.selector as Json | undefined) ?? {}) };
    selector.matchLabels = { ...((selector.matchLabels as Json | undefined) ?? {}) };
    selector.matchLabels[CONTROLLER_UID_LABEL] ??= obj.metadata.uid!;
    spec.selector = selector;
  }
  template.metadata = tmeta;
  spec.template = template;
  // SetDefaults_Job copies the template's labels to a Job without labels of its own.
  if (Object.keys(obj.metadata.labels ?? {}).length === 0 && tmeta.labels) obj.metadata.labels = { ...(tmeta.labels as Record<string, string>) };
  const ordered: Json = {};
  for (const k of SPEC_ORDER) if (spec[k] !== undefined) ordered[k] = spec[k];
  for (const k of Object.keys(spec)) if (!(k in ordered) && spec[k] !== undefined) ordered[k] = spec[k];
  obj.spec = ordered;
  obj.status = {};
}
