// --diff as text: one line per changed field path (the paths are computed in src/informer/object-diff.ts).
import type { FieldChange } from '../informer/object-diff.js';
import { escapeForTerminal } from './terminal-escape.js';

export { diffObjects, type DiffOptions, type FieldChange } from '../informer/object-diff.js';

const MAX_VALUE = 160;

/**
 * One line per change: `status.phase: Pending → Running`; added/removed fields show `<none>`.
 * Control characters (newlines of multi-line values too) are escaped: one change stays one line.
 */
export function formatDiff(changes: FieldChange[]): string {
  return changes.map((c) => escapeForTerminal(`${c.path}: ${show(c.old)} → ${show(c.new)}`)).join('\n');
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

function show(v: unknown): string {
  if (v === undefined) return '<none>';
  let s: string;
  if (typeof v === 'string') s = v === '' || /^\s|\s$|→|^<none>$/.test(v) ? JSON.stringify(v) : v;
  else if (Array.isArray(v) && v.every(isScalar)) s = `[${v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',')}]`;
  else s = JSON.stringify(v);
  // Whole added/removed sub-objects can be large; their paths already say what happened.
  return s.length > MAX_VALUE ? s.slice(0, MAX_VALUE - 1) + '…' : s;
}
