// Reads a recording (recording-format.ts) back as a stream: checks the header and version, then reads the body
// line by line — a first pass to count and check it, and a new pass each time replay iterates it — so memory
// follows the longest line and what replay keeps, never the file's size. A last line cut short by a killed
// recorder is left out; a line whose fields are wrong (recording-entry-check.ts) is left out and reported.
import { statSync } from 'node:fs';
import { checkEntry } from './recording-entry-check.js';
import { RECORDING_FORMAT_VERSION, RECORDING_KIND, type RecordingEntry, type RecordingHeader } from './recording-format.js';
import { LineTooLongError, readLines, splitLines, type Line, type LineReaderOptions } from './line-reader.js';

/** A recording that cannot be read; the message names the file and says what is wrong in one line. */
export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}

/** A body line left out: its number and what is wrong with it. */
export interface BadLine {
  line: number;
  problem: string;
}

/** The bad lines a recording keeps the text of; the rest are only counted. */
const KEPT_BAD_LINES = 100;

export interface Recording {
  header: RecordingHeader;
  /** Body entries in file order, read from the file again on each call (each pass holds one line at a time). */
  entries(): Iterable<RecordingEntry>;
  /** How many entries entries() yields. */
  count: number;
  /** `t` of the first and the last entry (0 when there are none). */
  firstT: number;
  lastT: number;
  /** The resourceVersion of the last event that carries one (ERROR events aside). */
  lastResourceVersion?: string;
  /** Epoch milliseconds of header.startTime: entry `t` offsets count from here. */
  startEpoch: number;
  /** Set when the last line was incomplete (the recorder was killed mid-write) and was left out. */
  truncated?: { line: number; bytes: number };
  /** Lines of a kind this kwatch does not know (written by a newer minor version); left out. */
  skipped: number;
  /** `write` lines: what a recorded controller process wrote (reconcile --exec --record); never replayed. */
  writes: number;
  /** Lines whose fields are wrong, left out: the first KEPT_BAD_LINES of them, and how many in all. */
  badLines: BadLine[];
  badLineCount: number;
}

/** Reads a recording file; throws RecordingError when it is not a readable recording. */
export function readRecording(path: string, o: LineReaderOptions = {}): Recording {
  try {
    if (!statSync(path).isFile()) throw new RecordingError(`${path}: not a file`);
  } catch (err) {
    if (err instanceof RecordingError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new RecordingError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read the recording: ${(err as Error).message}`);
  }
  return scanRecording(() => readLines(path, o), path);
}

/** Parses a recording's text; `name` is used in messages. */
export function parseRecording(text: string, name = 'recording'): Recording {
  return scanRecording(() => splitLines(text), name);
}

function scanRecording(lines: () => Iterator<Line>, name: string): Recording {
  const first = lines();
  const head = guard(name, () => first.next());
  if (head.done || head.value.text.trim() === '') {
    first.return?.(undefined);
    throw new RecordingError(`${name} is empty: not a kwatch recording`);
  }
  const header = parseHeader(head.value.text, name);
  const rec: Recording = {
    header,
    entries: () => ({ [Symbol.iterator]: () => body(skipHeader(lines(), name), header, name) }),
    count: 0,
    firstT: 0,
    lastT: 0,
    startEpoch: 0,
    skipped: 0,
    writes: 0,
    badLines: [],
    badLineCount: 0,
  };
  // The first pass: counts, times, and every problem, reported once here; later passes skip the same lines.
  for (const e of body(first, header, name, rec)) {
    if (rec.count === 0) rec.firstT = e.t;
    rec.count++;
    rec.lastT = e.t;
    if (e.rec === 'event' && e.event.type !== 'ERROR' && e.event.object.metadata?.resourceVersion) rec.lastResourceVersion = e.event.object.metadata.resourceVersion;
  }
  if (header.resources.length === 0) throw new RecordingError(`${name}: the recording names no resources (the recorded controller read nothing)`);
  const startEpoch = Date.parse(header.startTime);
  rec.startEpoch = Number.isFinite(startEpoch) ? startEpoch : 0;
  return rec;
}

function skipHeader(lines: Iterator<Line>, name: string): Iterator<Line> {
  guard(name, () => lines.next());
  return lines;
}

/**
 * The body's entries. One line is looked ahead, to know the last: only the last may be cut short (the recorder
 * writes whole lines), so a line that is not JSON anywhere else is damage and stops the read.
 */
function* body(lines: Iterator<Line>, header: RecordingHeader, name: string, report?: Recording): Generator<RecordingEntry> {
  try {
    let cur = guard(name, () => lines.next());
    while (!cur.done) {
      const next = guard(name, () => lines.next());
      const line = cur.value;
      cur = next;
      if (line.text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        if (next.done) {
          if (report) report.truncated = { line: line.number, bytes: Buffer.byteLength(line.text) };
          return;
        }
        throw new RecordingError(`${name}: line ${line.number} is not valid JSON: the recording is damaged`);
      }
      const checked = checkEntry(value, header);
      if ('entry' in checked) yield checked.entry;
      else if ('note' in checked) {
        // A resource met mid-recording joins the header (on the first pass; later passes find it there).
        const note = checked.note;
        if (note.rec === 'resource' && note.res === header.resources.length) header.resources.push(note.resource);
        if (note.rec === 'write' && report) report.writes++;
      }
      else if (!report) continue;
      else if ('unknownKind' in checked) report.skipped++;
      else {
        if (report.badLines.length < KEPT_BAD_LINES) report.badLines.push({ line: line.number, problem: checked.problem });
        report.badLineCount++;
      }
    }
  } finally {
    lines.return?.(undefined);
  }
}

function guard<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof LineTooLongError) throw new RecordingError(`${name}: ${e.message}: not a line kwatch writes (one list page or one event each)`);
    throw e;
  }
}

function parseHeader(line: string, name: string): RecordingHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new RecordingError(`${name} is not a kwatch recording: its first line is not JSON (recordings are written by kwatch events --record)`);
  }
  const h = value as Partial<RecordingHeader> | null;
  if (!h || typeof h !== 'object' || h.kind !== RECORDING_KIND) {
    throw new RecordingError(`${name} is not a kwatch recording: its first line is not a ${RECORDING_KIND} header (recordings are written by kwatch events --record)`);
  }
  if (typeof h.formatVersion !== 'number' || !Number.isInteger(h.formatVersion) || h.formatVersion < 1) {
    throw new RecordingError(`${name}: the recording header has no valid formatVersion`);
  }
  if (h.formatVersion > RECORDING_FORMAT_VERSION) {
    const by = h.kwatchVersion ? ` (kwatch ${h.kwatchVersion})` : '';
    throw new RecordingError(`${name} uses recording format ${h.formatVersion}, written by a newer kwatch${by}; this kwatch reads format ${RECORDING_FORMAT_VERSION}: upgrade kwatch to replay it`);
  }
  // Format 2 may declare its resources as they come (`resource` lines); format 1 declares them all here.
  if (!Array.isArray(h.resources) || (h.resources.length === 0 && h.formatVersion < 2)) throw new RecordingError(`${name}: the recording header names no resources`);
  return { ...h, startTime: typeof h.startTime === 'string' ? h.startTime : new Date(0).toISOString() } as RecordingHeader;
}
