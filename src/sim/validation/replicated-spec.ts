// The spec checks Deployments and ReplicaSets share (apps/validation ValidateDeploymentSpec, ValidateReplicaSetSpec,
// ValidatePodTemplateSpecForReplicaSet): without them a selector that misses its own pods makes the ReplicaSet
// controller create pods forever.
import type { FieldError } from '../status.js';
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../label-selector.js';
import { jsonEqual } from '../object-meta.js';
import { goLabelSelector, goStringMap } from './go-value.js';
import { validateMetadataMaps } from './object-meta.js';
import { validatePodSpec } from './pod-spec.js';

type Json = Record<string, unknown>;

export function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [{ field, type: 'Invalid value', value, detail: 'must be greater than or equal to 0' }] : [];
}

function selectorErrors(selector: LabelSelectorObject | null | undefined): FieldError[] {
  if (selector === null || selector === undefined) return [{ field: 'spec.selector', type: 'Required value', detail: '' }];
  const count = Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
  // kube says "deployment" here for ReplicaSets too.
  return count === 0 ? [{ field: 'spec.selector', type: 'Invalid value', goValue: goLabelSelector(selector), detail: 'empty selector is invalid for deployment' }] : [];
}

function templateErrors(spec: Json, selector: LabelSelector): FieldError[] {
  const errs: FieldError[] = [];
  const template = (spec.template ?? {}) as Json;
  const labels = ((template.metadata ?? {}) as Json).labels as Record<string, string> | undefined;
  if (!selector.empty && !selector.matches(labels)) {
    errs.push({ field: 'spec.template.metadata.labels', type: 'Invalid value', goValue: goStringMap(labels), detail: '`selector` does not match template `labels`' });
  }
  const podSpec = template.spec as Json | undefined;
  // ValidatePodTemplateSpec puts the template's labels at spec.template.labels (no "metadata"), as kube prints them.
  errs.push(...validateMetadataMaps(template.metadata, 'spec.template'));
  errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  const restartPolicy = podSpec?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') {
    errs.push({ field: 'spec.template.spec.restartPolicy', type: 'Unsupported value', value: restartPolicy, detail: 'supported values: "Always"' });
  }
  if (podSpec?.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push({ field: 'spec.template.spec.activeDeadlineSeconds', type: 'Invalid value', value: podSpec.activeDeadlineSeconds, detail: 'activeDeadlineSeconds in ReplicaSet is not Supported' });
  }
  return errs;
}

/** Errors of a Deployment's or ReplicaSet's spec (ValidateDeploymentSpec / ValidateReplicaSetSpec). */
export function validateReplicatedSpec(next: Json): FieldError[] {
  const spec = (next.spec ?? {}) as Json;
  const selector = spec.selector as LabelSelectorObject | null | undefined;
  const errs: FieldError[] = [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...selectorErrors(selector)];
  let parsed: LabelSelector | undefined;
  try {
    parsed = labelSelectorFromObject(selector);
  } catch {
    errs.push({ field: 'spec.selector', type: 'Invalid value', goValue: goLabelSelector(selector), detail: 'invalid label selector' });
  }
  if (parsed) errs.push(...templateErrors(spec, parsed));
  return errs;
}

/** apps/v1 strategies' ValidateUpdate: the selector never changes (checked after the spec, as kube orders it). */
export function selectorImmutable(next: Json, prev: Json): FieldError[] {
  const selector = ((next.spec ?? {}) as Json).selector as LabelSelectorObject | null | undefined;
  const old = ((prev.spec ?? {}) as Json).selector;
  return jsonEqual(selector ?? null, old ?? null) ? [] : [{ field: 'spec.selector', type: 'Invalid value', goValue: goLabelSelector(selector), detail: 'field is immutable' }];
}
