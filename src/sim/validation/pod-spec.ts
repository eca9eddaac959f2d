// ValidatePodSpec, the part the sim checks: at least one container, each with an image and a name that is a unique
// DNS-1123 label.
import type { FieldError } from '../status.js';
import { isDNS1123Label } from '../label-validation.js';

type Json = Record<string, unknown>;

function validateContainers(list: unknown, path: string, required: boolean, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const containers = Array.isArray(list) ? list as Json[] : [];
  if (containers.length === 0) {
    if (required) errs.push({ field: path, type: 'Required value', detail: '' });
    return errs;
  }
  containers.forEach((c, i) => {
    // validateContainerCommon (name, then image), then uniqueness, in kube's order.
    const name = typeof c?.name === 'string' ? c.name : '';
    const at = `${path}[${i}].name`;
    if (name === '') errs.push({ field: at, type: 'Required value', detail: '' });
    else for (const detail of isDNS1123Label(name)) errs.push({ field: at, type: 'Invalid value', value: name, detail });
    if (typeof c?.image !== 'string' || c.image === '') errs.push({ field: `${path}[${i}].image`, type: 'Required value', detail: '' });
    if (seen.has(name)) errs.push({ field: at, type: 'Duplicate value', value: name, detail: '' });
    seen.add(name);
  });
  return errs;
}

/** Errors of a pod spec at `path` (`spec` of a Pod, `spec.template.spec` of a workload). */
export function validatePodSpec(spec: Json | undefined, path: string): FieldError[] {
  const seen = new Set<string>();
  return [
    ...validateContainers(spec?.containers, `${path}.containers`, true, seen),
    ...validateContainers(spec?.initContainers, `${path}.initContainers`, false, seen),
  ];
}
