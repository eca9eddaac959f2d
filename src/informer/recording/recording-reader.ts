// Reads a recording (recording-format.ts) back: checks the header and version, parses every line,
// and tolerates a last line cut short by a killed recorder.
import { readFileSync } from 'node:fs';
import { RECORDING_FORMAT_VERSION, RECORDING_KIND, type RecordingEntry, type RecordingHeader } from './recording-format.js';

const ENTRY_KINDS = new Set(['list', 'watch-start', 'event', 'watch-end', 'error']);

/** A recording that cannot be read; the message names the file and says what is wrong in one line. */
export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}

export interface Recording {
  header: RecordingHeader;
  /** Body entries in file order. */
  entries: RecordingEntry[];
  /** Epoch milliseconds of header.startTime: entry `t` offsets count from here. */
  startEpoch: number;
  /** Set when the last line was incomplete (the recorder was killed mid-write) and was left out. */
  truncated?: { line: number; bytes: number };
  /** Lines of a kind this kwatch does not know (written by a newer minor version); left out. */
  skipped: number;
}

/** Reads and parses a recording file; throws RecordingError when it is not a readable recording. */
export function readRecording(path: string): Recording {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RecordingError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read the recording: ${(err as Error).message}`);
  }
  return parseRecording(text, path);
}

/** Parses a recording's text; `name` is used in messages. */
export function parseRecording(text: string, name = 'recording'): Recording {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) lines.pop();
  if (lines.length === 0 || lines[0].trim() === '') throw new RecordingError(`${name} is empty: not a kwatch recording`);
  const header = parseHeader(lines[0], name);
  const entries: RecordingEntry[] = [];
  let truncated: Recording['truncated'];
  let skipped = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    const last = i === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Only the final line may be cut short: the recorder writes whole lines, so a bad line anywhere else is damage.
      if (last) {
        truncated = { line: i + 1, bytes: Buffer.byteLength(line) };
        break;
      }
      throw new RecordingError(`${name}: line ${i + 1} is not valid JSON: the recording is damaged`);
    }
    const entry = asEntry(value, header, name, i + 1);
    if (entry) entries.push(entry);
    else skipped++;
  }
  const startEpoch = Date.parse(header.startTime);
  return { header, entries, startEpoch: Number.isFinite(startEpoch) ? startEpoch : 0, truncated, skipped };
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
  if (!Array.isArray(h.resources) || h.resources.length === 0) throw new RecordingError(`${name}: the recording header names no resources`);
  return { ...h, startTime: typeof h.startTime === 'string' ? h.startTime : new Date(0).toISOString() } as RecordingHeader;
}

/** Validates one body line; undefined for a well-formed line of an unknown kind. */
function asEntry(value: unknown, header: RecordingHeader, name: string, line: number): RecordingEntry | undefined {
  const e = value as { rec?: unknown; t?: unknown; res?: unknown; conn?: unknown } | null;
  if (!e || typeof e !== 'object' || typeof e.rec !== 'string') throw new RecordingError(`${name}: line ${line} is not a recording entry (no "rec" field)`);
  if (!ENTRY_KINDS.has(e.rec)) return undefined;
  const res = e.res ?? 0;
  if (typeof res !== 'number' || !Number.isInteger(res) || res < 0 || res >= header.resources.length) {
    throw new RecordingError(`${name}: line ${line} refers to resource ${String(e.res)}, but the header lists ${header.resources.length}`);
  }
  if (typeof e.t !== 'number' || typeof e.conn !== 'number') throw new RecordingError(`${name}: line ${line} has no numeric "t" and "conn"`);
  const entry = { ...e, res } as RecordingEntry;
  if (entry.rec === 'event' && (!entry.event || typeof entry.event.type !== 'string' || !entry.event.object)) {
    throw new RecordingError(`${name}: line ${line} is an event without a type and object`);
  }
  if (entry.rec === 'list' && (!entry.page || !Array.isArray(entry.page.items))) throw new RecordingError(`${name}: line ${line} is a list page without items`);
  return entry;
}
