// --expect FILE: what the end state of a --once run must hold (envtest plus Eventually, without a
// cluster). Each document is a partial object — apiVersion, kind, metadata.name (and namespace) name it,
// every other field given must be there with that value — or, with `absent: true`, an object that must
// not exist. Checked against the informers' caches once the run settles.
import type { KubeObject } from '../informer/types.js';
import { objectKey } from './catalog.js';

export interface Expectation {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  absent: boolean;
  /** The partial object (without `absent`). */
  want: Record<string, unknown>;
  /** "FILE document N", for messages. */
  where: string;
}

export interface ExpectationResult {
  expectation: Expectation;
  met: boolean;
  /** One line per field that differs: `spec.replicas: want 3, got 2`. */
  diff: string[];
}

export class ExpectationError extends Error {}

/** The documents of an --expect file (YAML or JSON; several YAML documents, or a JSON array). */
export function parseExpectations(docs: unknown[], file: string): Expectation[] {
  const flat = docs.flatMap((d) => (Array.isArray(d) ? d : [d])).filter((d) => d !== null && d !== undefined);
  if (flat.length === 0) throw new ExpectationError(`${file}: no expectation in it (one YAML document per object, e.g. apiVersion/kind/metadata.name and the fields that must hold)`);
  return flat.map((d, i) => {
    const where = `${file} document ${i + 1}`;
    if (typeof d !== 'object' || Array.isArray(d)) throw new ExpectationError(`${where}: must be an object (a partial Kubernetes object)`);
    const o = d as Record<string, unknown>;
    const meta = (o.metadata ?? {}) as Record<string, unknown>;
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof meta.name !== 'string') throw new ExpectationError(`${where}: needs apiVersion, kind and metadata.name (they name the object to check)`);
    if (o.absent !== undefined && typeof o.absent !== 'boolean') throw new ExpectationError(`${where}: absent must be true or false`);
    const { absent, ...want } = o;
    return { apiVersion: o.apiVersion, kind: o.kind, namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined, name: meta.name, absent: absent === true, want, where };
  });
}

export function expectationKey(e: Expectation): string {
  return objectKey(e.namespace, e.name);
}

/** Compares one expectation with the object found (undefined: not there). */
export function checkExpectation(e: Expectation, found: KubeObject | undefined): ExpectationResult {
  if (e.absent) return { expectation: e, met: found === undefined, diff: found === undefined ? [] : [`exists (resourceVersion ${found.metadata?.resourceVersion ?? '?'}), want absent`] };
  if (found === undefined) return { expectation: e, met: false, diff: ['not found'] };
  const diff: string[] = [];
  compare(e.want, found, '', diff);
  // A Secret's values never reach the output: which key differs is enough. `data` itself too: a wanted `data:
  // null` (or any non-map) would otherwise print the stored map whole.
  const shown = e.kind === 'Secret' ? diff.map((d) => (/^(data|stringData)[.[:]/.test(d) ? `${d.slice(0, d.indexOf(':'))}: differs (values masked)` : d)) : diff;
  return { expectation: e, met: diff.length === 0, diff: shown };
}

/** Every field of `want` in `got`: maps by key, lists order-free (each wanted element matches some element). */
function compare(want: unknown, got: unknown, path: string, diff: string[]): void {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return void diff.push(`${path}: want ${show(want)}, got ${showGot(got)}`);
    want.forEach((w, i) => {
      if (!got.some((g) => matches(w, g))) diff.push(`${path}[${i}]: want an element ${show(w)}, none matches`);
    });
    return;
  }
  if (isMap(want)) {
    if (!isMap(got)) return void diff.push(`${path || '(object)'}: want ${show(want)}, got ${showGot(got)}`);
    for (const [k, w] of Object.entries(want)) compare(w, got[k], path ? `${path}.${k}` : k, diff);
    return;
  }
  if (want !== got) diff.push(`${path}: want ${show(want)}, got ${showGot(got)}`);
}

function matches(want: unknown, got: unknown): boolean {
  const d: string[] = [];
  compare(want, got, '', d);
  return d.length === 0;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A missing field reads `<none>` whatever was wanted there (not `undefined`). */
function showGot(v: unknown): string {
  return v === undefined ? '<none>' : show(v);
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}
