// Which trace records a renderer shows: `--stages` parsing and the default selection.
import { STAGES, type Stage, type TraceRecord } from '../informer/trace.js';

/**
 * What `--stages` selects: explicit stages (every op of each, unless `ops` names some of a stage's: `endpoint:write`),
 * or `all`. Undefined means the default.
 */
export type StageSelection = (Set<Stage> & { ops?: ReadonlyMap<Stage, ReadonlySet<string>> }) | 'all';

/** Stages shown whole by default. */
export const DEFAULT_STAGES: ReadonlySet<Stage> = new Set<Stage>(['watch', 'fifo', 'handler', 'workqueue']);

/**
 * Reflector ops shown by default: its lifecycle (pages, watch start/close, reconnect, relist, 410,
 * backoff, errors), not its per-event chatter (bookmark, list-start).
 */
export const DEFAULT_REFLECTOR_OPS: ReadonlySet<string> = new Set([
  'list-page',
  'listed',
  'seeded',
  'list-error',
  'watch-start',
  'watch-close',
  'watch-error',
  'relist',
  'expired',
  'backoff',
  'retry-after',
  'synced',
  'watchdog',
  'very-short-watch',
  'fallback',
  'no-initial-events-end',
  'error',
  'stopped',
  'fault',
]);

/**
 * Reflector records that explain what happens to every key (a 410, a relist, the list that filled the cache, an
 * injected fault): a view following one key keeps them beside the key's records, so that a tombstone or an OnAdd
 * after a gap shows its cause.
 */
export const KEY_CAUSE_REFLECTOR_OPS: ReadonlySet<string> = new Set(['expired', 'relist', 'listed', 'seeded', 'fault']);

/** Whether a record of another key, or of none, explains what happens to a followed key (see KEY_CAUSE_REFLECTOR_OPS). */
export function explainsKeys(r: { stage: string; op: string; fault?: unknown }): boolean {
  // A hidden delete concerns its own key only (that key's view shows it as one of its records).
  if (r.op === 'fault' && typeof r.fault === 'string' && r.fault.startsWith('hide-delete:')) return false;
  return r.stage === 'reflector' && KEY_CAUSE_REFLECTOR_OPS.has(r.op);
}

/**
 * Workqueue ops hidden by default: per-key bookkeeping (`done`, `forget`) that follows every `get`.
 * Asking for the stage explicitly (`--stages workqueue`) shows them.
 */
export const DEFAULT_HIDDEN_WORKQUEUE_OPS: ReadonlySet<string> = new Set(['done', 'forget']);

/**
 * Parses `--stages watch,fifo` (comma or space separated, case-insensitive); `all` anywhere wins. `STAGE:OP` (ops
 * joined by `+`: `endpoint:write+relist+loop+fault`) shows only those ops of that stage, unless the stage is also
 * named whole.
 */
export function parseStages(s: string): StageSelection {
  const names = s
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) throw new Error(`no stages given: valid stages are ${STAGES.join(', ')}, all`);
  const out: Set<Stage> & { ops?: Map<Stage, Set<string>> } = new Set<Stage>();
  const whole = new Set<Stage>();
  const ops = new Map<Stage, Set<string>>();
  let all = false;
  for (const item of names) {
    const [n, opList] = item.split(':', 2) as [string, string | undefined];
    if (n === 'all' && opList === undefined) { all = true; continue; }
    if (!(STAGES as readonly string[]).includes(n)) throw new Error(`unknown stage "${n}": valid stages are ${STAGES.join(', ')}, all`);
    const stage = n as Stage;
    out.add(stage);
    if (opList === undefined) { whole.add(stage); continue; }
    const named = opList.split('+').filter(Boolean);
    if (named.length === 0) throw new Error(`"${item}" names no op: write STAGE:OP, several joined by + (endpoint:write+relist)`);
    let set = ops.get(stage);
    if (!set) ops.set(stage, (set = new Set()));
    for (const op of named) set.add(op);
  }
  if (all) return 'all';
  for (const stage of whole) ops.delete(stage);
  if (ops.size) out.ops = ops;
  return out;
}

/** kwatch reconcile's default: why each key was queued and what each run did, plus the reflector's lifecycle. */
export const RECONCILE_DEFAULT_STAGES: ReadonlySet<Stage> = new Set<Stage>(['workqueue', 'reconcile']);

/** A predicate for records under a selection; undefined selects the default set (`defaults`, or DEFAULT_STAGES). */
export function stageFilter(selection?: StageSelection, defaults: ReadonlySet<Stage> = DEFAULT_STAGES): (record: TraceRecord) => boolean {
  const shows = stageOpFilter(selection, defaults);
  return (r) => shows(r.stage, r.op);
}

/** The same selection as a predicate of a record's stage and op (what a Tracer asks its listeners). */
export function stageOpFilter(selection?: StageSelection, defaults: ReadonlySet<Stage> = DEFAULT_STAGES): (stage: Stage, op: string) => boolean {
  if (selection === 'all') return () => true;
  if (selection) {
    const ops = selection.ops;
    return ops ? (stage, op) => selection.has(stage) && (ops.get(stage)?.has(op) ?? true) : (stage) => selection.has(stage);
  }
  return (stage, op) => (defaults.has(stage) && !(stage === 'workqueue' && DEFAULT_HIDDEN_WORKQUEUE_OPS.has(op))) || (stage === 'reflector' && DEFAULT_REFLECTOR_OPS.has(op));
}
