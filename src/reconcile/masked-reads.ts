// A recording masks Secret data and credential-like fields of every kind (`<masked 6 bytes>`). A
// controller replayed from it that reads one of them sees the placeholder, not the value, and may behave
// differently than against the cluster: each masked value in an object handed to the reconciler becomes
// a getter that reports the read (once per field, by whoever listens), then returns the placeholder.
import type { KubeObject } from '../informer/types.js';

const MASKED = /<masked \d+ bytes>$/;

/**
 * Turns every masked string in `obj` (a fresh copy, mutated in place) into a reporting getter; `onRead`
 * gets the field's path (`data.password`, `spec.containers[0].env[1].value`).
 */
export function reportMaskedReads(obj: KubeObject, onRead: (path: string) => void): KubeObject {
  walk(obj, '', onRead);
  return obj;
}

function walk(v: unknown, path: string, onRead: (path: string) => void): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => (typeof x === 'string' ? guard(v, String(i), x, `${path}[${i}]`, onRead) : walk(x, `${path}[${i}]`, onRead)));
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const p = path ? (/^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`) : k;
    if (typeof o[k] === 'string') guard(o, k, o[k], p, onRead);
    else walk(o[k], p, onRead);
  }
}

function guard(o: object, k: string, value: string, path: string, onRead: (path: string) => void): void {
  if (!MASKED.test(value)) return;
  // Enumerable, so spreads, JSON and structuredClone still copy the (placeholder) value — and report it.
  Object.defineProperty(o, k, {
    enumerable: true,
    configurable: true,
    get() {
      onRead(path);
      return value;
    },
    set(next: unknown) {
      Object.defineProperty(o, k, { value: next, enumerable: true, configurable: true, writable: true });
    },
  });
}
