// Prints Kubernetes objects as kubectl does with -o json|yaml|name, plus ndjson and a NAME/AGE table.
import { createRequire } from 'node:module';
import type { KubeObject } from '../informer/types.js';
import { formatColumns } from './columns.js';
import { formatAge } from './format-units.js';
import { goJSON, sortKeys } from './go-print.js';
import { escapeForTerminal } from './terminal-escape.js';

export type ObjectOutput = 'json' | 'yaml' | 'name' | 'ndjson' | 'table';

export interface PrintObjectsOptions {
  output: ObjectOutput;
  stream: { write(chunk: string): unknown };
  /** Adds the NAMESPACE column to the table (-A). */
  allNamespaces?: boolean;
  /** Print one object bare instead of wrapped in a List (kubectl get NAME). Only with exactly one object. */
  single?: boolean;
  /** `-o name` prefix, e.g. `deployment.apps`; default: from each object's kind and apiVersion group. */
  resource?: string;
  /**
   * The List's metadata.resourceVersion in json/yaml: kubectl prints "" (its printer merges pages); a
   * paged list that knows the revision it read at says it, for `replay --from-rv`.
   */
  listResourceVersion?: string;
  /** For AGE. Default Date.now. */
  now?: () => number;
}

/** Writes the objects; returns how many were printed (callers print "No resources found" on 0). */
export function printObjects(objects: KubeObject[], opts: PrintObjectsOptions): number {
  const { stream } = opts;
  const doc = opts.single && objects.length === 1 ? objects[0] : listOf(objects, opts.listResourceVersion);
  switch (opts.output) {
    case 'json':
      stream.write(kubectlJSON(doc) + '\n');
      break;
    case 'yaml':
      stream.write(kubectlYAML(doc));
      break;
    case 'ndjson':
      writeLines(stream, objects, (o) => JSON.stringify(o));
      break;
    case 'name':
      writeLines(stream, objects, (o) => escapeForTerminal(`${opts.resource ?? resourcePrefix(o)}/${o.metadata?.name ?? ''}`));
      break;
    case 'table':
      if (objects.length > 0) stream.write(objectTable(objects, opts));
      break;
  }
  return objects.length;
}

/** A line per object, written in blocks of about 64 KiB: one write per line is most of the time for 100k names. */
function writeLines(stream: PrintObjectsOptions['stream'], objects: readonly KubeObject[], line: (o: KubeObject) => string): void {
  let block = '';
  for (const o of objects) {
    block += line(o) + '\n';
    if (block.length >= 65_536) {
      stream.write(block);
      block = '';
    }
  }
  if (block) stream.write(block);
}

/** kubectl's list wrapper for several objects (`kubectl get pods -o json`). */
export function listOf(items: KubeObject[], resourceVersion = ''): Record<string, unknown> {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion } };
}

/**
 * JSON as kubectl writes it (Go's json.MarshalIndent of an unstructured object): map keys sorted,
 * 4-space indent, and `<`, `>`, `&`, U+2028, U+2029 escaped as \u00XX like Go's encoder does.
 */
export function kubectlJSON(value: unknown): string {
  return goJSON(value, 4);
}

/** YAML as kubectl writes it: sorted keys, block sequences not indented under their key, no line folding. */
export function kubectlYAML(value: unknown): string {
  // yaml ships CommonJS: required lazily so only -o yaml pays for loading it.
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.stringify(sortKeys(value), { indentSeq: false, lineWidth: 0 });
}

/** `pod`, `deployment.apps`, `certificate.cert-manager.io`: lower-case kind, then the API group if any. */
export function resourcePrefix(obj: KubeObject): string {
  const kind = (obj.kind ?? '').toLowerCase();
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return slash > 0 ? `${kind}.${apiVersion.slice(0, slash)}` : kind;
}

function objectTable(objects: KubeObject[], opts: PrintObjectsOptions): string {
  const now = (opts.now ?? Date.now)();
  const headers = opts.allNamespaces ? ['NAMESPACE', 'NAME', 'AGE'] : ['NAME', 'AGE'];
  const rows = objects.map((o) => {
    const created = o.metadata?.creationTimestamp ? Date.parse(o.metadata.creationTimestamp) : NaN;
    const age = Number.isNaN(created) ? '<unknown>' : formatAge(now - created);
    const row = [o.metadata?.name ?? '', age];
    return opts.allNamespaces ? [o.metadata?.namespace ?? '', ...row] : row;
  });
  return formatColumns(headers, rows);
}

