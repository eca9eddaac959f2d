// Ready-made IndexFuncs (namespace, nodeName, phase, label, annotation, owner, JSONPath) and a spec parser for `--by`.
import type { IndexFunc } from './indexer.js';
import { metaNamespaceIndexFunc } from './indexer.js';
import { compileJsonPath, formatJsonPathValue } from './jsonpath.js';
import type { KubeObject } from './types.js';

const NONE: readonly string[] = [];

/** client-go's MetaNamespaceIndexFunc: `[namespace]`, "" for cluster-scoped objects. */
export const namespaceIndexFunc: IndexFunc = metaNamespaceIndexFunc;

/**
 * `[spec.nodeName]` for objects with a spec; an unscheduled pod indexes under "" (as the field
 * selector `spec.nodeName=` selects it). Objects without a spec are not indexed.
 */
export const nodeNameIndexFunc: IndexFunc = (obj) => {
  const spec = obj.spec as { nodeName?: unknown } | undefined;
  if (spec === undefined || spec === null || typeof spec !== 'object') return NONE;
  return [typeof spec.nodeName === 'string' ? spec.nodeName : ''];
};

/** `[status.phase]`; objects without a phase are not indexed. */
export const phaseIndexFunc: IndexFunc = (obj) => {
  const phase = (obj.status as { phase?: unknown } | undefined)?.phase;
  return typeof phase === 'string' ? [phase] : NONE;
};

/** `[labels[key]]`; objects without that label are not indexed. */
export function labelIndexFunc(key: string): IndexFunc {
  return (obj) => {
    const v = obj.metadata?.labels?.[key];
    return v === undefined ? NONE : [v];
  };
}

/** `[annotations[key]]`; objects without that annotation are not indexed. */
export function annotationIndexFunc(key: string): IndexFunc {
  return (obj) => {
    const v = obj.metadata?.annotations?.[key];
    return v === undefined ? NONE : [v];
  };
}

/** `["Kind/name"]` of the controller ownerReference (controller: true); objects without one are not indexed. */
export const ownerIndexFunc: IndexFunc = (obj) => {
  const refs = obj.metadata?.ownerReferences;
  if (refs === undefined) return NONE;
  for (const r of refs) if (r.controller === true) return [`${r.kind}/${r.name}`];
  return NONE;
};

/** Every value the kubectl-style JSONPath matches, formatted as kubectl prints it; duplicates removed. */
export function jsonPathIndexFunc(expression: string): IndexFunc {
  const path = compileJsonPath(expression);
  return (obj: KubeObject) => {
    const values = path(obj);
    if (values.length === 0) return NONE;
    if (values.length === 1) return [formatJsonPathValue(values[0])];
    return [...new Set(values.map(formatJsonPathValue))];
  };
}

/** The --by forms indexFuncFromSpec accepts: whole names, and prefixes that a key or expression follows. */
export const INDEX_SPECS = ['namespace', 'nodeName', 'phase', 'owner', 'label:', 'annotation:', 'jsonpath:'] as const;

/**
 * An index function from a short spec, as `kwatch index --by` takes it: `namespace`, `nodeName`,
 * `phase`, `owner`, `label:KEY`, `annotation:KEY`, `jsonpath:EXPR` or a bare `{…}` JSONPath.
 */
export function indexFuncFromSpec(spec: string): IndexFunc {
  if (spec.startsWith('label:')) return labelIndexFunc(spec.slice('label:'.length));
  if (spec.startsWith('annotation:')) return annotationIndexFunc(spec.slice('annotation:'.length));
  if (spec.startsWith('jsonpath:')) return jsonPathIndexFunc(spec.slice('jsonpath:'.length));
  if (spec.startsWith('{')) return jsonPathIndexFunc(spec);
  switch (spec) {
    case 'namespace':
      return namespaceIndexFunc;
    case 'nodeName':
      return nodeNameIndexFunc;
    case 'phase':
      return phaseIndexFunc;
    case 'owner':
      return ownerIndexFunc;
  }
  throw new Error(`unknown index "${spec}": use namespace, nodeName, phase, owner, label:KEY, annotation:KEY or a JSONPath like {.spec.nodeName}`);
}
