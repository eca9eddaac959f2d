// Streams trace records to an output stream as a table, wide table, json, ndjson, yaml or names.
//
// The `-o ndjson` contract (one JSON object per line, one line per trace record, fields in this order):
//   time   string  RFC 3339 UTC with milliseconds, e.g. "2026-11-25T23:40:01.123Z"
//   stage  string  http | reflector | watch | fifo | indexer | handler | workqueue | reconcile
//   op     string  the stage's op (see src/informer/trace.ts), e.g. "MODIFIED", "Updated", "OnUpdate", "add"
//   key    string|null  namespace/name (or name for cluster-scoped objects); null when the record has none
//   rv     string|null  resourceVersion the record refers to; null when it has none
//   type   string  only on watch records: ADDED | MODIFIED | DELETED | BOOKMARK | ERROR
//   id, cause, echoOf  the record's id in the run and the ids of what caused it (src/informer/trace-causes.ts); a
//          cause the view leaves out (--stages) is replaced by the nearest shown causes (shown-causes.ts)
//   ...    detail fields of the stage, as emitted (e.g. pages, items, bytes, ms, deltas, conn, depth,
//          reason); Errors become their message. Whole objects (`old`, `new`, `object`, `obj`,
//          `oldObject`, `newObject`) are left out unless the printer has includeObjects; with diff on,
//          `diff` holds [{path, old, new}] for records carrying both old and new objects.
// `-o json` prints the same objects as one array, `-o yaml` as a `---` separated YAML stream.
import { createRequire } from 'node:module';
import { NestingTooDeepError } from '../informer/nesting.js';
import type { KubeObject } from '../informer/types.js';
import { createdEssentials } from './created-object.js';
import type { Stage, TraceRecord } from '../informer/trace.js';
import { paint, type SgrName } from './color.js';
import { formatClock } from './format-units.js';
import { batchWrites, type BatchedWriter } from './line-batcher.js';
import { diffObjects, formatDiff } from './object-diff.js';
import { maskSecretChanges, maskSecrets } from './secrets.js';
import { stageOpFilter, type StageSelection } from './stage-filter.js';
import { escapeForTerminal } from './terminal-escape.js';
import { detailValue, LEADING_FIELDS, NdjsonBuffer } from './ndjson-buffer.js';
import { formatDetail, OBJECT_FIELDS } from './trace-detail.js';
import { ShownCauses } from './shown-causes.js';

export { shouldColor } from './color.js';
export { parseStages } from './stage-filter.js';

export type TraceOutput = 'table' | 'wide' | 'json' | 'ndjson' | 'yaml' | 'name';

export interface TracePrinterOptions {
  output: TraceOutput;
  /** Where lines go; the printer writes nothing anywhere else. */
  stream: { write(chunk: string): unknown };
  /** ANSI colour in table/wide output (decide with shouldColor). Default false. */
  color?: boolean;
  /** Which records to print; default: watch, fifo, handler, workqueue and the reflector's lifecycle. */
  stages?: StageSelection;
  /** The stages shown whole when `stages` is not given (kwatch reconcile shows workqueue and reconcile). */
  defaultStages?: ReadonlySet<Stage>;
  /** TIME column: local HH:MM:SS.mmm (`clock`, default) or RFC 3339 UTC (`iso`). */
  timeFormat?: 'clock' | 'iso';
  /** Keep `old`/`new`/`object` in json, ndjson and yaml output. Default false. */
  includeObjects?: boolean;
  /** Show what changed between `old` and `new` (`changed`: noise left out; `all`: every field). */
  diff?: 'changed' | 'all';
  /** Print Secret data and credentials in diffs and objects as they are (default: masked). */
  showSecrets?: boolean;
  /** Table output: the KEY and RV columns' starting widths (they grow to longer cells), e.g. to align a pane's lines. */
  columnWidths?: { key?: number; rv?: number };
  /** Time for records that carry none (epoch ms). Default Date.now. */
  now?: () => number;
  /**
   * Coalesce the lines of one event-loop turn into one write (end() writes what is pending). For live
   * output to a process stream; off by default so that a write is visible at once.
   */
  batch?: boolean;
}

export interface TracePrinter {
  write(record: TraceRecord): void;
  /** Whether write() prints records of this stage and op (a TraceInterest's `wants`). */
  shows(stage: Stage, op: string): boolean;
  /** Writes what a batched printer holds now (before a message on another stream, to keep the order). */
  flush(): void;
  /** Closes the output (the json array); further writes are ignored. */
  end(): void;
}

interface Column {
  header: string;
  /** Minimum width; longer cells push the following columns right instead of being cut. */
  width: number;
  /** Record fields this column shows (first present wins); they are left out of DETAIL. */
  fields: string[];
}

const GAP = '  ';
const BASE_COLUMNS: Column[] = [
  { header: 'TIME', width: 12, fields: [] },
  { header: 'STAGE', width: 9, fields: [] },
  { header: 'OP', width: 11, fields: [] },
  { header: 'KEY', width: 34, fields: [] }, // fits namespace/deployment-rs-pod names
  { header: 'RV', width: 7, fields: [] },
];
/** -o wide columns, and the record fields they read. */
export const WIDE_COLUMNS: Column[] = [
  { header: 'CONN', width: 4, fields: ['conn', 'connection', 'connId'] },
  { header: 'DEPTH', width: 5, fields: ['depth', 'queueDepth'] },
  { header: 'INDEX', width: 20, fields: ['index', 'indexValues', 'indices'] },
];

const STAGE_COLORS: Record<Stage, SgrName> = {
  http: 'gray',
  reflector: 'magenta',
  watch: 'cyan',
  fifo: 'blue',
  indexer: 'gray',
  handler: 'green',
  workqueue: 'yellow',
  reconcile: 'bold',
  endpoint: 'magenta',
};

const ADD_OPS = new Set(['ADDED', 'Added', 'OnAdd']);
const MODIFY_OPS = new Set(['MODIFIED', 'Updated', 'OnUpdate']);
const DELETE_OPS = new Set(['DELETED', 'Deleted', 'OnDelete']);
const ERROR_OPS = new Set(['ERROR', 'error', 'list-error', 'watch-error', 'expired', 'overflow', 'watchdog', 'very-short-watch']);

export function createTracePrinter(opts: TracePrinterOptions): TracePrinter {
  const shows = stageOpFilter(opts.stages, opts.defaultStages);
  const now = opts.now ?? Date.now;
  let write: Writer;
  let batched: BatchedWriter | undefined;
  const { output } = opts;
  if (output === 'ndjson') {
    // Lines are written as bytes into the batch itself (or, unbatched, into a buffer emptied after each line).
    const lines = new NdjsonBuffer();
    batched = opts.batch ? batchWrites(opts.stream, {}, lines) : undefined;
    write = ndjsonWriter(opts, lines, batched ? batched.appended : () => opts.stream.write(lines.take()));
  } else {
    batched = opts.batch ? batchWrites(opts.stream) : undefined;
    write = makeWriter({ ...opts, output, stream: batched ?? opts.stream });
  }
  let ended = false;
  const causes = new ShownCauses();
  return {
    shows,
    write(record) {
      if (ended) return;
      if (!shows(record.stage, record.op)) return causes.hide(record);
      const linked = causes.shown(record);
      const r = linked.time === undefined ? { ...linked, time: now() } : linked;
      try {
        write.record(r);
      } catch (e) {
        if (!(e instanceof NestingTooDeepError)) throw e;
        write.record(withoutObjects(r, e));
      }
    },
    flush() {
      batched?.flush();
    },
    end() {
      if (ended) return;
      ended = true;
      write.end();
      batched?.flush();
    },
  };
}

/**
 * The JSON form of a record (the ndjson contract above): fixed fields first, then details.
 * `diff` is added by the caller when asked for.
 */
export function traceRecordToJSON(record: TraceRecord, includeObjects = false): Record<string, unknown> {
  const out: Record<string, unknown> = {
    time: isoTime(record.time),
    stage: record.stage,
    op: record.op,
    key: record.key ?? null,
    rv: record.rv ?? null,
  };
  if (record.type !== undefined) out.type = record.type;
  for (const k in record) {
    if (LEADING_FIELDS.has(k)) continue;
    if (!includeObjects && OBJECT_FIELDS.has(k)) continue;
    const v = record[k];
    if (v === undefined) continue;
    out[k] = detailValue(v);
  }
  return out;
}

/** RFC 3339 of an epoch-ms time; the records of one event share their millisecond, so the last one is kept. */
let lastTime = NaN;
let lastIso = '';
function isoTime(ms: number): string {
  if (ms !== lastTime) {
    lastTime = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

interface Writer {
  record(r: TraceRecord): void;
  end(): void;
}

/**
 * A record's JSON form for the general path: masked, with its diff when asked for. A reconciler's write always
 * shows what it changes; other records only with --diff. The kind decides the Secret rules; an object from a
 * typed list may lack it where the other side has it.
 */
function jsonForm(opts: TracePrinterOptions): { toJSON(r: TraceRecord): Record<string, unknown>; changes(r: TraceRecord): ReturnType<typeof diffObjects> | undefined } {
  const reveal = { reveal: opts.showSecrets };
  const changes = (r: TraceRecord) =>
    (opts.diff || isWrite(r)) && isObject(r.old) && isObject(r.new)
      ? maskSecretChanges(r.new.kind !== undefined ? r.new : r.old, diffObjects(r.old, r.new, { all: opts.diff === 'all' }), reveal)
      : undefined;
  const toJSON = (r: TraceRecord) => {
    const o = traceRecordToJSON(opts.includeObjects ? maskSecrets(r, { ...reveal, assumeKind: kindOf(r) }) : isWrite(r) ? maskWrite(r, reveal) : r, opts.includeObjects);
    const d = changes(r);
    if (d) o.diff = d;
    return o;
  };
  return { toJSON, changes };
}

/** `-o ndjson`: most records need no masking and no diff, and their line goes straight into `lines` as bytes. */
function ndjsonWriter(opts: TracePrinterOptions, lines: NdjsonBuffer, appended: () => void): Writer {
  const { toJSON } = jsonForm(opts);
  const plain = !opts.includeObjects && !opts.diff;
  return {
    record(r) {
      if (!(plain && !isWrite(r) && lines.record(r))) lines.push(JSON.stringify(toJSON(r)) + '\n');
      appended();
    },
    end: () => {},
  };
}

function makeWriter(opts: TracePrinterOptions & { output: Exclude<TraceOutput, 'ndjson'> }): Writer {
  const { stream } = opts;
  const { toJSON, changes } = jsonForm(opts);
  switch (opts.output) {
    case 'json': {
      let n = 0;
      return {
        // Streamed: each element is written as it arrives, so a long watch never piles up in memory.
        record(r) {
          const body = JSON.stringify(toJSON(r), null, 2).replace(/\n/g, '\n  ');
          stream.write((n++ === 0 ? '[\n  ' : ',\n  ') + body);
        },
        end: () => stream.write(n === 0 ? '[]\n' : '\n]\n'),
      };
    }
    case 'yaml': {
      let yaml: typeof import('yaml') | undefined;
      return {
        record(r) {
          // yaml ships CommonJS: a lazy synchronous require keeps write() synchronous and start-up light.
          yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
          stream.write('---\n' + yaml.stringify(toJSON(r), { lineWidth: 0, indentSeq: false }));
        },
        end: () => {},
      };
    }
    case 'name':
      return { record: (r) => stream.write(escapeForTerminal(`${r.stage}/${r.op}${r.key ? ` ${r.key}` : ''}`) + '\n'), end: () => {} };
    case 'table':
    case 'wide':
      return tableWriter(opts, changes);
  }
}

function tableWriter(opts: TracePrinterOptions, changes: (r: TraceRecord) => ReturnType<typeof diffObjects> | undefined): Writer {
  const wide = opts.output === 'wide';
  const columns = wide ? [...BASE_COLUMNS, ...WIDE_COLUMNS] : BASE_COLUMNS;
  // A stack is for machines (-o json/ndjson): the table has the error's `at`.
  const skip = new Set([...columns.flatMap((c) => c.fields), 'stack']);
  const color = opts.color === true;
  const iso = opts.timeFormat === 'iso';
  // KEY and RV grow to the longest key and resourceVersion printed so far, so that a long key moves RV and DETAIL
  // once, for every line from it on, rather than pushing them out of line on its own line only.
  const widths = columns.map((c) => (c.header === 'KEY' ? Math.max(c.width, opts.columnWidths?.key ?? 0) : c.header === 'RV' ? Math.max(c.width, opts.columnWidths?.rv ?? 0) : c.width));
  const elastic = [columns.findIndex((c) => c.header === 'KEY'), columns.findIndex((c) => c.header === 'RV')];
  let headerDone = false;
  return {
    record(r) {
      let line = '';
      const cells = [
        iso ? new Date(r.time).toISOString() : formatClock(r.time),
        r.stage,
        r.op,
        r.key ?? '',
        r.rv ?? '',
        ...(wide ? WIDE_COLUMNS.map((c) => cellOf(r, c.fields)) : []),
        formatDetail(r, isWrite(r) ? WRITE_TABLE_SKIP : skip),
      ];
      for (const i of elastic) widths[i] = Math.max(widths[i], escapeForTerminal(cells[i]).length);
      if (!headerDone) {
        headerDone = true;
        line += joinCells([...columns.map((c) => c.header), 'DETAIL'], widths, () => undefined) + '\n';
      }
      line += joinCells(cells, widths, color ? (i) => styleOf(i, r) : () => undefined) + '\n';
      const d = changes(r);
      if (d && d.length > 0) line += formatDiff(d).replace(/^/gm, '    ') + '\n';
      else if (isCreate(r)) line += escapeForTerminal(createdEssentials(r.new as KubeObject), { multiline: true }).replace(/^/gm, '    ') + '\n';
      opts.stream.write(line);
    },
    end: () => {},
  };
}

/**
 * Starts each cell at its column's fixed position, styling only the text, never the padding. A cell
 * longer than its column (an op such as initial-events-end) takes room from the next cells' padding, so
 * that the columns after it stay where they are when there is room (an empty KEY); only when there is
 * none does the line run on, with a GAP between cells. Control characters in a cell are escaped first
 * (keys, values and messages come from servers).
 */
function joinCells(cells: string[], widths: readonly number[], style: (i: number) => SgrName | undefined): string {
  let out = '';
  let pos = 0;
  let start = 0;
  for (let i = 0; i < cells.length; i++) {
    const text = escapeForTerminal(cells[i]);
    const s = style(i);
    out += s && text ? paint(s, text) : text;
    pos += text.length;
    if (i < widths.length) {
      start += widths[i] + GAP.length;
      const pad = pos + GAP.length > start ? GAP.length : start - pos;
      out += ' '.repeat(pad);
      pos += pad;
    }
  }
  return out.trimEnd();
}

function styleOf(column: number, r: TraceRecord): SgrName | undefined {
  if (column === 1) return STAGE_COLORS[r.stage];
  if (column === 2) {
    if (DELETE_OPS.has(r.op) || ERROR_OPS.has(r.op) || r.op.endsWith('-error')) return 'red';
    if (ADD_OPS.has(r.op)) return 'green';
    // A question the target answers in every --writes mode (a TokenRequest, an access review) stands out.
    if (r.stage === 'endpoint' && r.op === 'question') return 'yellow';
    if (MODIFY_OPS.has(r.op)) return 'yellow';
  }
  if (column === 0) return 'dim';
  return undefined;
}

function cellOf(r: TraceRecord, fields: string[]): string {
  for (const f of fields) {
    const v = r[f];
    if (v === undefined || v === null) continue;
    if (typeof v === 'object' && !Array.isArray(v)) {
      // Index values as name=v1,v2 pairs: {"nodeName":["n1"]} → nodeName=n1
      return Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${k}=${Array.isArray(x) ? x.join(',') : String(x)}`)
        .join(' ');
    }
    return Array.isArray(v) ? v.join(',') : String(v);
  }
  return '';
}

/** A write's table line names verb, target and mode; the request and changed paths show as the diff below it. */
const WRITE_TABLE_SKIP: ReadonlySet<string> = new Set(['request', 'changed', 'conn', 'connection', 'connId', 'depth', 'queueDepth', 'index', 'indexValues', 'indices']);

/** A record whose objects nest too deep to show: printed without them, saying why (one object fails, not the run). */
function withoutObjects(r: TraceRecord, e: NestingTooDeepError): TraceRecord {
  const out: TraceRecord = { ...r };
  for (const k of Object.keys(out)) if (OBJECT_FIELDS.has(k) || k === 'request' || k === 'diff') delete out[k];
  out.omitted = `its objects: ${e.message}`;
  return out;
}

/** A write that makes a new object (create, recordEvent): nothing to diff, the object's essentials instead. */
function isCreate(r: TraceRecord): boolean {
  return isWrite(r) && (r.verb === 'create' || r.verb === 'event') && !isObject(r.old) && isObject(r.new);
}

function isWrite(r: TraceRecord): boolean {
  return (r.stage === 'reconcile' || r.stage === 'endpoint') && r.op === 'write';
}

/** A write's request carries the object or patch as sent: a Secret's data in it is masked like anywhere else (a patch names no kind). */
function maskWrite(r: TraceRecord, reveal: { reveal?: boolean }): TraceRecord {
  if (reveal.reveal || !isObject(r.request) || !isObject(r.request.body)) return r;
  const body = r.request.body;
  if (r.resource !== 'secrets' || body.kind !== undefined) {
    const masked = maskSecrets(body, reveal);
    return masked === body ? r : { ...r, request: { ...r.request, body: masked } };
  }
  // A patch of a Secret may be just {stringData: …}: masked as the Secret it changes.
  const { kind: _k, metadata: _m, ...masked } = maskSecrets({ ...body, kind: 'Secret', metadata: body.metadata ?? {} }, reveal) as Record<string, unknown>;
  return { ...r, request: { ...r.request, body: body.metadata === undefined ? masked : { ...masked, metadata: _m } } };
}

/** The kind of the objects a record carries (one side of an update may come from a typed list, without kind). */
function kindOf(r: TraceRecord): string | undefined {
  for (const f of OBJECT_FIELDS) {
    const o = r[f];
    if (isObject(o) && typeof o.kind === 'string') return o.kind;
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
