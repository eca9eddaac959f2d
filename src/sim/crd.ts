// CustomResourceDefinition handling: validation, defaulting, the status the apiextensions controllers would set, and the resource types it serves.
import type { SimObject } from './api.js';
import { resourceTypesFromCrd, type ResourceType } from './registry.js';
import { invalid, type FieldErrorType } from './status.js';
import { kubeTime } from './object-meta.js';

interface Names { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] }
interface Version { name?: string; served?: boolean; storage?: boolean; schema?: { openAPIV3Schema?: unknown } }
interface Spec { group?: string; scope?: string; names?: Names; versions?: Version[] }

/**
 * Validates and defaults a CRD about to be written and sets its status as if the naming and establishing
 * controllers ran at once (Established=True, NamesAccepted=True), so custom resources are servable immediately.
 */
export function prepareCrd(obj: SimObject, old: SimObject | undefined): void {
  const spec = (obj.spec ?? {}) as Spec;
  const name = obj.metadata.name ?? '';
  const errs: { field: string; type: FieldErrorType; detail: string; value?: unknown }[] = [];
  if (!spec.group) errs.push({ field: 'spec.group', type: 'Required value', detail: '' });
  if (!spec.names?.plural) errs.push({ field: 'spec.names.plural', type: 'Required value', detail: '' });
  if (!spec.names?.kind) errs.push({ field: 'spec.names.kind', type: 'Required value', detail: '' });
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push({ field: 'spec.scope', type: 'Unsupported value', value: spec.scope ?? '', detail: 'supported values: "Cluster", "Namespaced"' });
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errs.push({ field: 'spec.versions', type: 'Invalid value', value: null, detail: 'must have exactly one version marked as storage version' });
  else if (versions.filter((v) => v.storage).length !== 1) errs.push({ field: 'spec.versions', type: 'Invalid value', value: null, detail: 'must have exactly one version marked as storage version' });
  versions.forEach((v, i) => {
    if (!v.name) errs.push({ field: `spec.versions[${i}].name`, type: 'Required value', detail: '' });
    if (!v.schema?.openAPIV3Schema) errs.push({ field: `spec.versions[${i}].schema.openAPIV3Schema`, type: 'Required value', detail: 'schemas are required' });
  });
  if (spec.group && spec.names?.plural && name !== `${spec.names.plural}.${spec.group}`) {
    errs.push({ field: 'metadata.name', type: 'Invalid value', value: name, detail: 'must be spec.names.plural+"."+spec.group' });
  }
  if (errs.length) throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, errs.map((e) => ({ ...e, detail: e.detail || '' })));

  const names = spec.names!;
  names.singular ??= names.kind!.toLowerCase();
  names.listKind ??= `${names.kind}List`;
  for (const v of versions) v.served ??= true;
  const accepted: Names = { plural: names.plural, singular: names.singular, ...(names.shortNames ? { shortNames: names.shortNames } : {}), kind: names.kind, listKind: names.listKind, ...(names.categories ? { categories: names.categories } : {}) };
  const oldStatus = (old?.status ?? {}) as { conditions?: { type: string; lastTransitionTime?: string }[]; storedVersions?: string[] };
  const since = (type: string) => oldStatus.conditions?.find((c) => c.type === type)?.lastTransitionTime ?? kubeTime(new Date());
  const storage = versions.find((v) => v.storage)!.name!;
  const stored = new Set(oldStatus.storedVersions ?? []);
  stored.add(storage);
  obj.status = {
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: since('NamesAccepted'), reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: since('Established'), reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    acceptedNames: accepted,
    storedVersions: [...stored],
  };
}

/** The resource types a stored CRD makes servable. */
export function crdResourceTypes(obj: SimObject): ResourceType[] {
  return resourceTypesFromCrd(obj);
}
