// How deep kwatch follows an object's nesting. kube-apiserver accepts 10,000 levels, but Node's own recursion
// (JSON.stringify, structuredClone, yaml) overflows its stack at a few thousand: every walk over server data
// counts its depth and stops at this bound with NestingTooDeepError, which fails one object, never the process.
import { KwatchError } from './errors.js';

/** Deepest nesting any walk over an object follows (the sim refuses bodies deeper than this too). */
export const MAX_NESTING_DEPTH = 1000;

/** An object nested deeper than MAX_NESTING_DEPTH: its message is one line, completed by `describe` with the object. */
export class NestingTooDeepError extends KwatchError {
  constructor() {
    super('TOO_DEEP', `nested more than ${MAX_NESTING_DEPTH} levels deep (kwatch follows objects to ${MAX_NESTING_DEPTH} levels)`);
    this.name = 'NestingTooDeepError';
  }
}

/** Throws NestingTooDeepError once a walk is `depth` levels down; walks call it on the way in. */
export function checkNestingDepth(depth: number): void {
  if (depth > MAX_NESTING_DEPTH) throw new NestingTooDeepError();
}

/** Whether `value` nests deeper than `limit` levels: an iterative walk (no recursion), stopping at the first too-deep path. */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** JSON.stringify for server data: an object too deep for it fails with NestingTooDeepError, not a RangeError. */
export function stringifyBounded(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, undefined, space);
  } catch (e) {
    if (e instanceof RangeError) throw new NestingTooDeepError();
    throw e;
  }
}

/**
 * A copy of `value` whose objects and arrays at `limit` levels down are replaced by `marker`: for a recording,
 * which must keep the entry (the object's identity and the rest of the stream) even when the object is too deep.
 * Iterative.
 */
export function cutNestingBelow(value: unknown, limit: number, marker: string): unknown {
  const root: Record<string, unknown> = { value };
  const stack: [Record<string, unknown> | unknown[], string | number, number][] = [[root, 'value', 0]];
  while (stack.length > 0) {
    const [parent, key, depth] = stack.pop()!;
    const v = (parent as Record<string, unknown>)[key];
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) {
      (parent as Record<string, unknown>)[key] = marker;
      continue;
    }
    const copy: Record<string, unknown> | unknown[] = Array.isArray(v) ? v.slice() : { ...(v as Record<string, unknown>) };
    (parent as Record<string, unknown>)[key] = copy;
    if (Array.isArray(copy)) for (let i = 0; i < copy.length; i++) stack.push([copy, i, depth + 1]);
    else for (const k of Object.keys(copy)) stack.push([copy, k, depth + 1]);
  }
  return root.value;
}
