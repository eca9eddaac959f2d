// "Follow one key": what each stage did with one key, kept for the key being followed (up to `followed`
// records). What came before Enter is seeded from the records the caller still holds (the activity
// pane's ring of every stage), and, when asked (`recentKeys` > 0), from a ring per recently seen key (up
// to `perKey` records each, least recently seen keys dropped first) — off by default: on a busy watch
// those rings cost a fifth of the pipeline's throughput (garbage kept alive a little longer). Whole
// objects are not kept: a record carrying old and new keeps only their diff.
import type { TraceRecord } from '../../informer/trace.js';
import { formatClock } from '../format-units.js';
import { diffObjects, formatDiff, type FieldChange } from '../object-diff.js';
import { maskSecretChanges } from '../secrets.js';
import { explainsKeys } from '../stage-filter.js';
import { escapeForTerminal } from '../terminal-escape.js';
import { formatDetail, OBJECT_FIELDS } from '../trace-detail.js';

export interface KeyHistoryOptions {
  /** Keys remembered besides the followed one; default 0 (seed from the activity ring instead). */
  recentKeys?: number;
  /** Records per remembered key (an event is 6–10 records across the stages); default 32. */
  perKey?: number;
  /** Records of the followed key; default 2000. */
  followed?: number;
  /** Secret data in diffs as it is (default masked). */
  showSecrets?: boolean;
  /** Diff every field, managedFields and resourceVersion included (--diff-all). */
  diffAll?: boolean;
}

/** A record as kept: no objects, the diff of old → new when it had both. */
export type HistoryRecord = TraceRecord & { changes?: FieldChange[] };

export class KeyHistory {
  private readonly recent = new Map<string, HistoryRecord[]>();
  private followedKey?: string;
  private followedRecords: HistoryRecord[] = [];
  private readonly recentKeys: number;
  private readonly perKey: number;
  private readonly followedMax: number;

  constructor(private readonly opts: KeyHistoryOptions = {}) {
    this.recentKeys = opts.recentKeys ?? 0;
    this.perKey = opts.perKey ?? 32;
    this.followedMax = opts.followed ?? 2000;
  }

  /** A TraceListener. */
  readonly add = (r: TraceRecord): void => {
    const key = r.key;
    if (!key) {
      // A relist or a 410 explains what happens next to the followed key (its tombstone, an OnAdd after a gap).
      if (this.followedKey !== undefined && explainsKeys(r)) this.keepFollowed(r);
      return;
    }
    if (key === this.followedKey) {
      this.keepFollowed(r);
      return;
    }
    if (this.recentKeys === 0) return;
    const kept = this.slim(r);
    // The records of one event come one after another with the same key: it is already the most recent.
    if (key === this.lastKey && this.lastList !== undefined) {
      this.lastList.push(kept);
      if (this.lastList.length > this.perKey) this.lastList.shift();
      return;
    }
    let list = this.recent.get(key);
    if (list) this.recent.delete(key);
    else {
      list = [];
      if (this.recent.size >= this.recentKeys) this.recent.delete(this.recent.keys().next().value!);
    }
    this.recent.set(key, list);
    this.lastKey = key;
    this.lastList = list;
    list.push(kept);
    if (list.length > this.perKey) list.shift();
  };
  private lastKey?: string;
  private lastList?: HistoryRecord[];

  private keepFollowed(r: TraceRecord): void {
    this.followedRecords.push(this.slim(r));
    if (this.followedRecords.length > this.followedMax) this.followedRecords.shift();
  }

  /**
   * From now on every record of `key` is kept (up to `followed`), starting from what is remembered of it,
   * or else from its records among `seed` (oldest first: the activity pane's ring).
   */
  follow(key: string, seed: readonly TraceRecord[] = []): void {
    if (key === this.followedKey) return;
    this.lastKey = this.lastList = undefined;
    this.unfollow();
    this.followedKey = key;
    this.followedRecords = this.recent.get(key) ?? seed.filter((r) => r.key === key || (!r.key && explainsKeys(r))).map((r) => this.slim(r));
    this.recent.delete(key);
  }

  /** Back to remembering the key like any other recent one. */
  unfollow(): void {
    const key = this.followedKey;
    if (key === undefined) return;
    this.lastKey = this.lastList = undefined;
    this.followedKey = undefined;
    if (this.followedRecords.length > 0 && this.recentKeys > 0) this.recent.set(key, this.followedRecords.slice(-this.perKey));
    this.followedRecords = [];
  }

  get following(): string | undefined {
    return this.followedKey;
  }

  records(key: string): readonly HistoryRecord[] {
    return key === this.followedKey ? this.followedRecords : (this.recent.get(key) ?? []);
  }

  /** How many keys are remembered (the followed one included): the memory bound's witness. */
  get size(): number {
    return this.recent.size + (this.followedKey !== undefined ? 1 : 0);
  }

  private slim(r: TraceRecord): HistoryRecord {
    // Checked field by field: this runs for every record (OBJECT_FIELDS names the same ones).
    if (r.old === undefined && r.new === undefined && r.object === undefined && r.obj === undefined && r.oldObject === undefined && r.newObject === undefined) return r;
    const kept: HistoryRecord = { ...r };
    for (const f of OBJECT_FIELDS) delete kept[f];
    const { old, new: now } = r as { old?: unknown; new?: unknown };
    if (isObject(old) && isObject(now)) {
      kept.changes = maskSecretChanges(now.kind !== undefined ? now : old, diffObjects(old, now, { all: this.opts.diffAll === true }), { reveal: this.opts.showSecrets });
    }
    return kept;
  }
}

/** Fields the history line says in its own words (or that repeat the dashboard's context). */
const SKIP = new Set(['changes', 'controller', 'queue', 'fifo', 'listener', 'oldRv', 'tombstone', 'tombstoneType', 'tombstoneExplanation', 'type', 'sync', 'isInInitialList', 'name']);

/**
 * One key's history as lines: `TIME  STAGE  OP  RV  what happened`, each diff change on a line of its own
 * below its record. Handler updates say old → new RV; tombstones say DeletedFinalStateUnknown.
 */
export function historyLines(records: readonly HistoryRecord[]): string[] {
  const out: string[] = [];
  for (const r of records) {
    const what: string[] = [];
    if (r.stage === 'handler' && r.op === 'OnUpdate') what.push(`rv ${String(r.oldRv ?? '?')} → ${r.rv ?? '?'}${r.sync ? ' (resync)' : ''}`);
    if (r.stage === 'handler' && r.op === 'OnAdd' && r.isInInitialList) what.push('(initial list)');
    if (r.tombstone === true) what.push(`tombstone: DeletedFinalStateUnknown (${typeof r.tombstoneExplanation === 'string' ? r.tombstoneExplanation : 'deleted while the watch was down; last state known'})`);
    if (r.stage === 'workqueue' && r.op === 'dedup') what.push('already queued: reasons merged');
    const detail = formatDetail(r, SKIP);
    if (detail) what.push(detail);
    const head = `${formatClock(r.time)}  ${r.stage.padEnd(9)}  ${r.op.padEnd(13)}  ${(r.rv ?? '').padEnd(7)}  ${what.join('  ')}`;
    out.push(escapeForTerminal(head.trimEnd()));
    if (r.changes && r.changes.length > 0) for (const line of formatDiff(r.changes).split('\n')) out.push(`      ${line}`);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
