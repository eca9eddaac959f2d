// ValidateControllerRevision(Update) of kube 1.32 (pkg/apis/apps/validation): data is mandatory and never changes,
// the revision number is not negative. Names are DNS subdomains (checked with every object's metadata). kube prints
// the changed data as a Go value; the sim prints it as JSON.
import { jsonEqual } from '../object-meta.js';
import type { FieldError } from '../status.js';

type Json = Record<string, unknown>;

export function validateControllerRevision(next: Json, prev: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (next.data === undefined || next.data === null) errs.push({ field: 'data', type: 'Required value', detail: 'data is mandatory' });
  const revision = next.revision;
  if (typeof revision === 'number' && revision < 0) errs.push({ field: 'revision', type: 'Invalid value', value: revision, detail: 'must be greater than or equal to 0' });
  if (prev && !jsonEqual(next.data, prev.data)) errs.push({ field: 'data', type: 'Invalid value', goValue: JSON.stringify(next.data), detail: 'field is immutable' });
  return errs;
}
