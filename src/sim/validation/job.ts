// Job validation (batch/validation ValidateJobSpec, ValidateJobUpdate), the part that keeps the Job controller from
// running away: the selector — generated, or manual — must match the template's labels, and never changes.
import type { FieldError } from '../status.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../label-selector.js';
import { goStringMap } from './go-value.js';
import { validateMetadataMaps } from './object-meta.js';
import { validatePodSpec } from './pod-spec.js';
import { nonNegative, selectorImmutable } from './replicated-spec.js';

type Json = Record<string, unknown>;

export function validateJob(next: Json, prev: Json | undefined): FieldError[] {
  const spec = (next.spec ?? {}) as Json;
  const errs: FieldError[] = [
    ...nonNegative(spec.parallelism, 'spec.parallelism'),
    ...nonNegative(spec.completions, 'spec.completions'),
    ...nonNegative(spec.backoffLimit, 'spec.backoffLimit'),
  ];
  const selector = spec.selector as LabelSelectorObject | null | undefined;
  if (selector === null || selector === undefined) errs.push({ field: 'spec.selector', type: 'Required value', detail: '' });
  const template = (spec.template ?? {}) as Json;
  const labels = ((template.metadata ?? {}) as Json).labels as Record<string, string> | undefined;
  try {
    if (!labelSelectorFromObject(selector).matches(labels)) {
      errs.push({ field: 'spec.template.metadata.labels', type: 'Invalid value', goValue: goStringMap(labels), detail: '`selector` does not match template `labels`' });
    }
  } catch {
    errs.push({ field: 'spec.selector', type: 'Invalid value', value: selector, detail: 'invalid label selector' });
  }
  errs.push(...validateMetadataMaps(template.metadata, 'spec.template'), ...validatePodSpec(template.spec as Json | undefined, 'spec.template.spec'));
  if (prev) errs.push(...selectorImmutable(next, prev));
  return errs;
}
