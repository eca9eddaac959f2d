// Reads a recording (recording-format.ts) back as a stream: checks the header and version, then reads the body
// line by line — a first pass to count and check it, and a new pass each time replay iterates it (one per
// resource that has entries, at most OPEN_PASSES of them holding a file and a buffer at once) — so memory
// follows the longest line and what replay keeps, never the file's size nor the number of resources it declares. A last line cut short by a killed
// recorder is left out; a line whose fields are wrong (recording-entry-check.ts) is left out and reported.
import { statSync } from 'node:fs';
import { checkEntry } from './recording-entry-check.js';
import { RECORDING_FORMAT_VERSION, RECORDING_KIND, type RecordedWatchListSettings, type RecordingEntry, type RecordingHeader } from './recording-format.js';
import { LineTooLongError, splitLines, type Line, type LinePosition, type LineReaderOptions } from './line-reader.js';
import { LinePasses } from './line-passes.js';
import { SharedPass } from './shared-pass.js';

/**
 * The most resources a recording may declare (header and `resource` lines): each is replayed by an informer of its
 * own. A cluster serves a few hundred kinds; a file declaring more is refused in one line rather than replayed.
 */
export const MAX_RECORDING_RESOURCES = 1000;

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
  /** The entries of resource `res` (an index of header.resources): none, without reading, when it has none. */
  entriesOf(res: number): Iterable<RecordingEntry>;
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
  const passes = new LinePasses(path, o);
  return scanRecording((from) => passes.pass(from), path);
}

/** Parses a recording's text; `name` is used in messages. */
export function parseRecording(text: string, name = 'recording'): Recording {
  return scanRecording((from) => splitLines(text, from), name);
}

function scanRecording(lines: (from?: LinePosition) => Iterator<Line>, name: string): Recording {
  const first = lines();
  const head = guard(name, () => first.next());
  if (head.done || head.value.text.trim() === '') {
    first.return?.(undefined);
    throw new RecordingError(`${name} is empty: not a kwatch recording`);
  }
  const header = parseHeader(head.value.text, name);
  /** Entries per resource, counted by the first pass. */
  const perResource: number[] = [];
  let shared: SharedPass | undefined;
  const sharedSource = (onEntry: (line: Line) => void) => body(skipHeader(lines(), name), header, name, { onEntry });
  /** Resource `res`'s entries after `from` (the file's start when undefined). */
  const ownPass = (res: number, from?: LinePosition) => body(from === undefined ? skipHeader(lines(), name) : lines(from), header, name, { only: res });
  const rec: Recording = {
    header,
    entries: () => ({ [Symbol.iterator]: () => body(skipHeader(lines(), name), header, name) }),
    entriesOf: (res) => {
      if (!perResource[res]) return [];
      return {
        [Symbol.iterator]: () => {
          // Resources read together share one pass (replay reads them all); one joining later reads on its own.
          if (shared === undefined || !shared.canJoin(res)) shared = new SharedPass(sharedSource, ownPass);
          return shared.join(res);
        },
      };
    },
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
  for (const e of body(first, header, name, { report: rec })) {
    if (rec.count === 0) rec.firstT = e.t;
    rec.count++;
    rec.lastT = e.t;
    perResource[e.res] = (perResource[e.res] ?? 0) + 1;
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

interface BodyOptions {
  /** The first pass: counts problems, skipped and written lines into it. */
  report?: Recording;
  /** Only resource `only`'s entries are wanted. */
  only?: number;
  /** Told the line of each entry before it is yielded. */
  onEntry?: (line: Line) => void;
}

/**
 * The start of a line as kwatch writes it (JSON.stringify keeps the fields' order): its `res`, read without parsing
 * the line. A pass for one resource skips the others' lines by it (a replay makes one pass per resource).
 */
const WRITTEN_RES = /^\{"rec":"[a-z-]+","t":[0-9.e+-]+,"res":(\d+),/;

/**
 * The body's entries (only resource `only`'s, when given: other lines may be skipped unparsed). One line is looked
 * ahead, to know the last: only the last may be cut short (the recorder writes whole lines), so a line that is not
 * JSON anywhere else is damage and stops the read.
 */
function* body(lines: Iterator<Line>, header: RecordingHeader, name: string, o: BodyOptions = {}): Generator<RecordingEntry> {
  const { report, only } = o;
  try {
    let cur = guard(name, () => lines.next());
    while (!cur.done) {
      const next = guard(name, () => lines.next());
      const line = cur.value;
      cur = next;
      if (line.text.trim() === '') continue;
      if (only !== undefined) {
        const res = WRITTEN_RES.exec(line.text)?.[1];
        if (res !== undefined && Number(res) !== only) continue;
      }
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
      if ('entry' in checked) {
        o.onEntry?.(line);
        yield checked.entry;
      }
      else if ('note' in checked) {
        // A resource met mid-recording joins the header (on the first pass; later passes find it there).
        const note = checked.note;
        if (note.rec === 'resource' && note.res === header.resources.length) {
          if (header.resources.length >= MAX_RECORDING_RESOURCES) throw tooManyResources(name, line.number);
          header.resources.push(note.resource);
        }
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

function tooManyResources(name: string, line?: number): RecordingError {
  return new RecordingError(`${name}: the recording declares more than ${MAX_RECORDING_RESOURCES} resources${line === undefined ? ' in its header' : ` (line ${line} is resource ${MAX_RECORDING_RESOURCES + 1})`}: kwatch replays at most ${MAX_RECORDING_RESOURCES}`);
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
  if (h.resources.length > MAX_RECORDING_RESOURCES) throw tooManyResources(name);
  const { watchList, ...rest } = h;
  const settings = watchListSettings(watchList);
  return { ...rest, startTime: typeof h.startTime === 'string' ? h.startTime : new Date(0).toISOString(), ...(settings ? { watchList: settings } : {}) } as RecordingHeader;
}

/** The header's watch-list settings; one that cannot be read is left out, and the replay keeps the reflector's defaults as for an older recording. */
function watchListSettings(value: unknown): RecordedWatchListSettings | undefined {
  const v = value as Partial<RecordedWatchListSettings> | null | undefined;
  if (!v || typeof v !== 'object') return undefined;
  const ms = v.initialEventsEndTimeoutMs;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || typeof v.fallbackWithoutInitialEventsEnd !== 'boolean') return undefined;
  return { initialEventsEndTimeoutMs: ms, fallbackWithoutInitialEventsEnd: v.fallbackWithoutInitialEventsEnd };
}
