// What changed between two versions of an object, as field paths with old → new values (kwatch events
// --diff, the writes of kwatch reconcile and its loop detector).
//
// Paths: `status.phase`, `metadata.labels.app`, `metadata.labels["app.kubernetes.io/name"]` (keys that
// are not plain identifiers are bracket-quoted). Arrays of objects that all carry a distinct `name`
// are addressed by it — `spec.containers[name=nginx].image` — else by a distinct `type`
// (`status.conditions[type=Ready].status`), else by index (`spec.tolerations[0].key`). Arrays of
// scalars compare as one value (`metadata.finalizers: [a] → [a,b]`). An added or removed field has
// `old` or `new` undefined.

import { checkNestingDepth } from './nesting.js';

export interface FieldChange {
  path: string;
  old: unknown;
  new: unknown;
}

export interface DiffOptions {
  /** Include noise: managedFields, resourceVersion, generation, heartbeat/probe times, last-applied. */
  all?: boolean;
}

/** Paths that change on nearly every write without saying anything about what the write did. */
const NOISE_PATHS = new Set([
  'metadata.managedFields',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]',
]);
/** Condition fields that tick on every kubelet/controller heartbeat. */
const NOISE_CONDITION_FIELDS = new Set(['lastHeartbeatTime', 'lastProbeTime']);

export function diffObjects(oldObj: unknown, newObj: unknown, opts: DiffOptions = {}): FieldChange[] {
  const out: FieldChange[] = [];
  walk(oldObj, newObj, '', opts.all === true, out, 0);
  return out;
}

/** Throws NestingTooDeepError below MAX_NESTING_DEPTH levels: one object's diff fails, not the run. */
function walk(a: unknown, b: unknown, path: string, all: boolean, out: FieldChange[], depth: number): void {
  if (a === b) return;
  checkNestingDepth(depth);
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k in a) {
      const p = join(path, k);
      if (!all && isNoise(path, k, p)) continue;
      if (!Object.hasOwn(b, k)) out.push({ path: p, old: a[k], new: undefined });
      else walk(a[k], b[k], p, all, out, depth + 1);
    }
    for (const k in b) {
      if (Object.hasOwn(a, k)) continue;
      const p = join(path, k);
      if (!all && isNoise(path, k, p)) continue;
      out.push({ path: p, old: undefined, new: b[k] });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.every(isScalar) && b.every(isScalar)) {
      if (a.length !== b.length || a.some((x, i) => x !== b[i])) out.push({ path, old: a, new: b });
      return;
    }
    const by = keyField(a, b);
    if (by) {
      const olds = new Map(a.map((x) => [(x as Record<string, unknown>)[by] as string, x]));
      const news = new Map(b.map((x) => [(x as Record<string, unknown>)[by] as string, x]));
      for (const [id, x] of olds) {
        const p = `${path}[${by}=${id}]`;
        if (news.has(id)) walk(x, news.get(id), p, all, out, depth + 1);
        else out.push({ path: p, old: x, new: undefined });
      }
      for (const [id, x] of news) if (!olds.has(id)) out.push({ path: `${path}[${by}=${id}]`, old: undefined, new: x });
      return;
    }
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= a.length) out.push({ path: p, old: undefined, new: b[i] });
      else if (i >= b.length) out.push({ path: p, old: a[i], new: undefined });
      else walk(a[i], b[i], p, all, out, depth + 1);
    }
    return;
  }
  // Different types, or scalars that differ (NaN never appears in JSON).
  out.push({ path, old: a, new: b });
}

function isNoise(parent: string, key: string, path: string): boolean {
  if (NOISE_PATHS.has(path)) return true;
  return NOISE_CONDITION_FIELDS.has(key) && parent.startsWith('status.conditions[');
}

/** `name` or `type` when every element of both arrays is an object with a distinct string value there. */
function keyField(a: unknown[], b: unknown[]): 'name' | 'type' | undefined {
  for (const f of ['name', 'type'] as const) if (distinctBy(a, f) && distinctBy(b, f)) return f;
  return undefined;
}

function distinctBy(xs: unknown[], f: string): boolean {
  const seen = new Set<string>();
  for (const x of xs) {
    if (!isPlainObject(x)) return false;
    const v = x[f];
    if (typeof v !== 'string' || seen.has(v)) return false;
    seen.add(v);
  }
  return true;
}

const IDENT = /^[A-Za-z_$][\w$-]*$/;

function join(path: string, key: string): string {
  if (IDENT.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
