// Turns what a controller module exports into one ControllerDefinition, or a one-line error naming
// the file. Two forms: a plain `export async function reconcile(req, ctx)` (CommonJS: module.exports =
// function, or module.exports.reconcile), or a Builder-like definition as the default export
// (CommonJS: module.exports = { for, reconcile, ... }).
import { ControllerModuleError } from './controller-module-error.js';
import { BUILT_IN_PREDICATES } from './predicates.js';
import type { ControllerDefinition, ErrorPolicyFn, Predicate, ReconcileFn, WatchSpec } from './types.js';

export interface ControllerShape {
  /** The definition's name, else the file's basename without its extension. */
  name: string;
  /** `for` is the module's own value, else the command line's RESOURCE; the rest as the module gave it. */
  definition: ControllerDefinition;
  /** The primary resource the module itself names (`for`), if it names one. */
  moduleFor?: string;
}

export interface ShapeContext {
  /** The path as the user gave it: the start of every error line. */
  display: string;
  /** The module's absolute path (the error's .file). */
  file: string;
  /** The default name: the file's basename without its extension. */
  defaultName: string;
  /** RESOURCE from the command line. */
  resource?: string;
}

const MISSING_RECONCILE = 'exports no reconcile function (export async function reconcile(req, ctx), or export default defineController({ for, reconcile }))';

export function controllerShape(exports: Record<string, unknown>, where: ShapeContext): ControllerShape {
  const fail = (what: string): never => {
    throw new ControllerModuleError(`${where.display}: ${what}`, where.file);
  };
  const source = definitionSource(exports);
  if (!source || source.reconcile === undefined) return fail(MISSING_RECONCILE);

  if (typeof source.reconcile !== 'function') fail(`reconcile is ${describe(source.reconcile)}, not a function`);
  if (source.errorPolicy !== undefined && typeof source.errorPolicy !== 'function') fail(`errorPolicy is ${describe(source.errorPolicy)}, not a function`);
  if (source.name !== undefined && !isName(source.name)) fail(`name must be a non-empty string, got ${describe(source.name)}`);
  if (source.for !== undefined && !isName(source.for)) fail(`for must be a resource name such as 'deployments.apps', got ${describe(source.for)}`);
  if (source.ownsAllOwners !== undefined && typeof source.ownsAllOwners !== 'boolean') fail(`ownsAllOwners must be true or false, got ${describe(source.ownsAllOwners)}`);
  const owns = source.owns === undefined ? undefined : checkOwns(source.owns, fail);
  const predicates = source.predicates === undefined ? undefined : checkPredicates(source.predicates, 'predicates', fail);
  const watches = source.watches === undefined ? undefined : checkWatches(source.watches, fail);
  const indexers = source.indexers === undefined ? undefined : checkIndexers(source.indexers, fail);
  const cache = source.cache === undefined ? undefined : checkCache(source.cache, fail);

  const moduleFor = source.for as string | undefined;
  const primary = moduleFor ?? where.resource;
  if (!primary) fail('names no primary resource: give RESOURCE on the command line or `for` in the module');

  const owner = source.owner;
  const definition: ControllerDefinition = {
    name: (source.name as string | undefined) ?? where.defaultName,
    for: primary,
    // Bound, so a definition's methods can still reach its other members through `this`.
    reconcile: (source.reconcile as ReconcileFn).bind(owner),
  };
  if (source.errorPolicy !== undefined) definition.errorPolicy = (source.errorPolicy as ErrorPolicyFn).bind(owner);
  if (owns) definition.owns = owns;
  if (predicates) definition.predicates = predicates;
  if (source.ownsAllOwners !== undefined) definition.ownsAllOwners = source.ownsAllOwners as boolean;
  if (watches) definition.watches = watches;
  if (indexers) definition.indexers = indexers;
  if (cache) definition.cache = cache;
  return { name: definition.name!, definition, ...(moduleFor !== undefined ? { moduleFor } : {}) };
}

interface DefinitionSource {
  name?: unknown;
  for?: unknown;
  owns?: unknown;
  predicates?: unknown;
  ownsAllOwners?: unknown;
  watches?: unknown;
  indexers?: unknown;
  cache?: unknown;
  reconcile?: unknown;
  errorPolicy?: unknown;
  /** `this` for reconcile and errorPolicy. */
  owner: unknown;
}

/** Which of the module's exports describe the controller; undefined when none does. */
function definitionSource(exports: Record<string, unknown>): DefinitionSource | undefined {
  const def = exports.default;
  if (isObject(def) && ('reconcile' in def || 'for' in def)) {
    return { name: def.name, for: def.for, owns: def.owns, predicates: def.predicates, ownsAllOwners: def.ownsAllOwners, watches: def.watches, indexers: def.indexers, cache: def.cache, reconcile: def.reconcile, errorPolicy: def.errorPolicy, owner: def };
  }
  if ('reconcile' in exports && exports.reconcile !== undefined) return { reconcile: exports.reconcile, errorPolicy: exports.errorPolicy, owner: undefined };
  // export default async function reconcile(…), or CommonJS module.exports = function (…).
  if (typeof def === 'function') {
    const fn = def as unknown as Record<string, unknown>;
    return { reconcile: def, errorPolicy: exports.errorPolicy ?? fn.errorPolicy, owner: undefined };
  }
  return undefined;
}

function checkIndexers(indexers: unknown, fail: (what: string) => never): NonNullable<ControllerDefinition['indexers']> {
  const shape = "{ 'pods': { byNode: (pod) => [pod.spec.nodeName] } }";
  if (!isObject(indexers)) return fail(`indexers must be ${shape}, got ${describe(indexers)}`);
  for (const [resource, funcs] of Object.entries(indexers)) {
    if (!isObject(funcs)) fail(`indexers['${resource}'] must map index names to functions, as in ${shape}, got ${describe(funcs)}`);
    for (const [name, fn] of Object.entries(funcs as Record<string, unknown>)) {
      if (typeof fn !== 'function') fail(`indexers['${resource}'].${name} is ${describe(fn)}, not a function returning the object's index values`);
    }
  }
  return indexers as NonNullable<ControllerDefinition['indexers']>;
}

function checkCache(cache: unknown, fail: (what: string) => never): NonNullable<ControllerDefinition['cache']> {
  const shape = "{ 'deployments.apps': { namespaces: ['shop'], labelSelector: 'app=web', fieldSelector: 'metadata.name=web' } }";
  if (!isObject(cache)) return fail(`cache must be ${shape}, got ${describe(cache)}`);
  const out: NonNullable<ControllerDefinition['cache']> = {};
  for (const [resource, entry] of Object.entries(cache)) {
    if (!isObject(entry)) return fail(`cache['${resource}'] must be { namespaces, labelSelector, fieldSelector }, got ${describe(entry)}`);
    for (const k of Object.keys(entry)) if (!['namespaces', 'labelSelector', 'fieldSelector'].includes(k)) fail(`cache['${resource}'].${k} is not a cache setting: use namespaces, labelSelector or fieldSelector`);
    if (entry.namespaces !== undefined && (!Array.isArray(entry.namespaces) || entry.namespaces.length === 0 || !entry.namespaces.every(isName))) fail(`cache['${resource}'].namespaces must be a non-empty array of namespace names, got ${describe(entry.namespaces)}`);
    for (const k of ['labelSelector', 'fieldSelector'] as const) if (entry[k] !== undefined && typeof entry[k] !== 'string') fail(`cache['${resource}'].${k} must be a string such as 'app=web', got ${describe(entry[k])}`);
    out[resource] = { ...(entry.namespaces ? { namespaces: [...(entry.namespaces as string[])] } : {}), ...(entry.labelSelector !== undefined ? { labelSelector: entry.labelSelector as string } : {}), ...(entry.fieldSelector !== undefined ? { fieldSelector: entry.fieldSelector as string } : {}) };
  }
  return out;
}

function checkOwns(owns: unknown, fail: (what: string) => never): NonNullable<ControllerDefinition['owns']> {
  const shape = "a resource name such as 'replicasets.apps', or { resource: 'replicasets.apps', predicates: ['GenerationChanged'] }";
  if (!Array.isArray(owns)) return fail(`owns must be an array of resource names such as ['replicasets.apps'], got ${describe(owns)}`);
  return owns.map((r: unknown, i) => {
    if (isName(r)) return r;
    if (!isObject(r) || !isName(r.resource)) return fail(`owns[${i}] must be ${shape}, got ${describe(isObject(r) ? r.resource : r)}`);
    for (const k of Object.keys(r)) if (k !== 'resource' && k !== 'predicates') fail(`owns[${i}].${k} is not an owns setting: use resource and predicates`);
    return { resource: r.resource, ...(r.predicates !== undefined ? { predicates: checkPredicates(r.predicates, `owns[${i}].predicates`, fail) } : {}) };
  });
}

function checkPredicates(list: unknown, where: string, fail: (what: string) => never): Predicate[] {
  const names = BUILT_IN_PREDICATES.map((n) => `'${n}'`).join(', ');
  if (!Array.isArray(list)) return fail(`${where} must be an array of functions or names (${names}), got ${describe(list)}`);
  list.forEach((p: unknown, i) => {
    if (typeof p === 'function') return;
    if (typeof p === 'string' && (BUILT_IN_PREDICATES as readonly string[]).includes(p)) return;
    fail(`${where}[${i}] must be a function (event) => boolean or one of ${names}, got ${describe(p)}`);
  });
  return [...(list as Predicate[])];
}

function checkWatches(watches: unknown, fail: (what: string) => never): WatchSpec[] {
  const shape = '{ resource: string, map(obj) { return [{ namespace, name }] } }';
  if (!Array.isArray(watches)) return fail(`watches must be an array of ${shape}, got ${describe(watches)}`);
  watches.forEach((w, i) => {
    if (!isObject(w)) return fail(`watches[${i}] must be ${shape}, got ${describe(w)}`);
    if (!isName(w.resource)) fail(`watches[${i}].resource must be a resource name such as 'configmaps', got ${describe(w.resource)}`);
    if (typeof w.map !== 'function') fail(`watches[${i}].map must be a function from the watched object to the primary objects to reconcile, got ${describe(w.map)}`);
    if (w.predicates !== undefined) checkPredicates(w.predicates, `watches[${i}].predicates`, fail);
  });
  // The user's own objects, so map keeps its `this`.
  return [...(watches as WatchSpec[])];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isName(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/** 'undefined', 'null', 'an array', 'the string "x"', 'a number (3)', 'an object'. */
function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v === '' ? 'an empty string' : `the string ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `a ${typeof v} (${String(v)})`;
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
