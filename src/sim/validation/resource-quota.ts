// kube's ResourceQuota validation (pkg/apis/core/validation/validation.go: ValidateResourceQuota, ValidateResourceQuotaSpec,
// validateResourceQuotaScopes, validateScopedResourceSelectorRequirement, ValidateResourceQuotaUpdate,
// ValidateResourceQuotaStatusUpdate; the name sets of pkg/apis/core/helper/helpers.go), with kube's field paths and
// messages: hard names that are no quota resource, negative or fractional amounts, unknown or conflicting scopes, scopes
// that do not apply to a hard name, scope selector operators and values, and scopes changed on update.
import type { FieldError } from '../status.js';
import { isQualifiedName } from '../label-validation.js';
import { parseQuantity } from '../kinds/quantity.js';
import { goQuantity, goStrings } from './go-value.js';
import { goQuote } from '../selector-error.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});

/** helper.standardQuotaResources: what the quota system knows by a bare name. */
const STANDARD_QUOTA = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
/** helper.standardResources: the bare names known at all (storage is one, though no quota resource). */
const STANDARD_RESOURCE = new Set([...STANDARD_QUOTA, 'storage']);
/** helper.integerResources: counted in whole numbers. */
const INTEGER = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

const quotaHugePages = (name: string): boolean => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
const standardQuotaName = (name: string): boolean => STANDARD_QUOTA.has(name) || quotaHugePages(name);
/** helper.IsNativeResource: a bare name, or one in the kubernetes.io/ namespace. */
const nativeName = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsExtendedResourceName: not native, not `requests.`, and a qualified name once `requests.` is put before it. */
const extendedName = (name: string): boolean => !nativeName(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;

/**
 * helper.IsStandardResourceQuotaScope. VolumeAttributesClass (kube 1.34+, behind its feature gate before) is accepted
 * in every release the sim serves, and counts nothing in the sim.
 */
const SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass']);
/** The scopes a scope selector may only name with the operator Exists. */
const EXISTS_ONLY = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'CrossNamespacePodAffinity']);
const CONFLICTING: readonly (readonly [string, string])[] = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];

/** helper.IsResourceQuotaScopeValidForResource: the pod scopes limit pods and their cpu and memory, BestEffort pods only. */
function scopeAppliesTo(scope: string, name: string): boolean {
  switch (scope) {
    case 'Terminating': case 'NotTerminating': case 'NotBestEffort': case 'PriorityClass': case 'CrossNamespacePodAffinity':
      return name === 'pods' || POD_COMPUTE.has(name);
    case 'BestEffort': return name === 'pods';
    default: return true;
  }
}

/** ValidateResourceQuotaResourceName (validateResourceName first). */
function resourceNameErrors(name: string, field: string): FieldError[] {
  const errs: FieldError[] = isQualifiedName(name).map((detail) => ({ field, type: 'Invalid value', value: name, detail }));
  const bare = name.split('/').length === 1;
  if (errs.length === 0 && bare && !STANDARD_RESOURCE.has(name) && !quotaHugePages(name)) errs.push({ field, type: 'Invalid value', value: name, detail: 'must be a standard resource type or fully qualified' });
  if (bare && !standardQuotaName(name)) errs.push({ field, type: 'Invalid value', value: name, detail: 'must be a standard resource for quota' });
  return errs;
}

/**
 * ValidateResourceQuantityValue: not negative (the value as Quantity.String prints it, which is the stored string), and
 * whole for the integer resources (MilliValue, rounded up, a multiple of 1000; the Quantity printed as Go's %#v).
 */
function quantityErrors(name: string, value: unknown, field: string): FieldError[] {
  const q = parseQuantity(value);
  if (!q) return [];
  const errs: FieldError[] = [];
  if (q.milli < 0n) errs.push({ field, type: 'Invalid value', value: String(value), detail: 'must be greater than or equal to 0' });
  if ((INTEGER.has(name) || extendedName(name)) && q.milli % 1000n !== 0n) errs.push({ field, type: 'Invalid value', goValue: goQuantity(String(value)), detail: 'must be an integer' });
  return errs;
}

/** A ResourceList (spec.hard, status.hard, status.used): each name and amount, in name order (Go's map order is random). */
function resourceListErrors(list: unknown, path: string): FieldError[] {
  const entries = obj(list);
  return Object.keys(entries).sort().flatMap((name) => {
    const field = `${path}[${name}]`;
    return [...resourceNameErrors(name, field), ...quantityErrors(name, entries[name], field)];
  });
}

const stringList = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map((s) => String(s ?? '')) : undefined);

/** %#v of the internal []core.ResourceQuotaScope kube prints for spec.scopes. */
function goScopes(scopes: string[] | undefined): string {
  return scopes ? `[]core.ResourceQuotaScope{${scopes.map(goQuote).join(', ')}}` : '[]core.ResourceQuotaScope(nil)';
}

/** %#v of the internal core.ScopeSelector (the pointer's value). */
function goScopeSelector(selector: Json): string {
  const exprs = Array.isArray(selector.matchExpressions)
    ? `[]core.ScopedResourceSelectorRequirement{${selector.matchExpressions.map((e) => {
      const r = obj(e);
      return `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(String(r.scopeName ?? ''))}, Operator:${goQuote(String(r.operator ?? ''))}, Values:${goStrings(stringList(r.values))}}`;
    }).join(', ')}}`
    : '[]core.ScopedResourceSelectorRequirement(nil)';
  return `core.ScopeSelector{MatchExpressions:${exprs}}`;
}

function conflicting(scopes: Set<string>): number {
  return CONFLICTING.filter(([a, b]) => scopes.has(a) && scopes.has(b)).length;
}

/** validateResourceQuotaScopes: each scope known and applying to every standard hard name; no conflicting pair. */
function scopesErrors(spec: Json, hardNames: string[]): FieldError[] {
  const scopes = stringList(spec.scopes) ?? [];
  if (scopes.length === 0) return [];
  const field = 'spec.scopes';
  const goValue = goScopes(scopes);
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!SCOPES.has(scope)) errs.push({ field, type: 'Invalid value', goValue, detail: 'unsupported scope' });
    for (const name of hardNames) {
      if (standardQuotaName(name) && !scopeAppliesTo(scope, name)) errs.push({ field, type: 'Invalid value', goValue, detail: 'unsupported scope applied to resource' });
    }
  }
  for (let i = conflicting(new Set(scopes)); i > 0; i--) errs.push({ field, type: 'Invalid value', goValue, detail: 'conflicting scopes' });
  return errs;
}

/**
 * validateScopedResourceSelectorRequirement: kube's paths name no index (`spec.scopeSelector.matchExpressions.operator`),
 * and its "conflicting scopes" shows spec.scopes, not the selector.
 */
function scopeSelectorErrors(spec: Json, hardNames: string[]): FieldError[] {
  if (spec.scopeSelector === undefined || spec.scopeSelector === null) return [];
  const selector = obj(spec.scopeSelector);
  const field = 'spec.scopeSelector.matchExpressions';
  const errs: FieldError[] = [];
  const named = new Set<string>();
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const req = obj(e);
    const scope = String(req.scopeName ?? '');
    const operator = String(req.operator ?? '');
    const values = stringList(req.values);
    if (!SCOPES.has(scope)) errs.push({ field: `${field}.scopeName`, type: 'Invalid value', value: scope, detail: 'unsupported scope' });
    for (const name of hardNames) {
      if (standardQuotaName(name) && !scopeAppliesTo(scope, name)) errs.push({ field, type: 'Invalid value', goValue: goScopeSelector(selector), detail: 'unsupported scope applied to resource' });
    }
    if (EXISTS_ONLY.has(scope) && operator !== 'Exists') {
      errs.push({ field: `${field}.operator`, type: 'Invalid value', value: operator, detail: "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity" });
    }
    if (operator === 'In' || operator === 'NotIn') {
      if (!values || values.length === 0) errs.push({ field: `${field}.values`, type: 'Required value', detail: "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector" });
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values && values.length > 0) errs.push({ field: `${field}.values`, type: 'Invalid value', goValue: goStrings(values), detail: "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector" });
    } else {
      errs.push({ field: `${field}.operator`, type: 'Invalid value', value: operator, detail: 'not a valid selector operator' });
    }
    named.add(scope);
  }
  for (let i = conflicting(named); i > 0; i--) errs.push({ field, type: 'Invalid value', goValue: goScopes(stringList(spec.scopes)), detail: 'conflicting scopes' });
  return errs;
}

/** ValidateResourceQuotaSpec, and on update ValidateResourceQuotaUpdate's rule that spec.scopes (as a set) never changes. */
export function validateResourceQuota(next: Json, prev: Json | undefined): FieldError[] {
  const spec = obj(next.spec);
  const hardNames = Object.keys(obj(spec.hard)).sort();
  const errs = [...resourceListErrors(spec.hard, 'spec.hard'), ...scopesErrors(spec, hardNames), ...scopeSelectorErrors(spec, hardNames)];
  if (prev) {
    const scopes = stringList(spec.scopes);
    const before = new Set(stringList(obj(prev.spec).scopes) ?? []);
    const after = new Set(scopes ?? []);
    if (before.size !== after.size || [...after].some((s) => !before.has(s))) errs.push({ field: 'spec.scopes', type: 'Invalid value', goValue: goScopes(scopes), detail: 'field is immutable' });
  }
  return errs;
}

/** ValidateResourceQuotaStatusUpdate: status.hard and status.used, each name and amount. */
export function validateResourceQuotaStatus(next: Json): FieldError[] {
  const status = obj(next.status);
  return [...resourceListErrors(status.hard, 'status.hard'), ...resourceListErrors(status.used, 'status.used')];
}
