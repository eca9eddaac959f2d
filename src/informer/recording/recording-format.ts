// The recording format written by `kwatch events --record` and read by `kwatch replay`: NDJSON,
// one header line, then one line per thing the server sent, in arrival order. Versioned.
import type { ListOptions, ListPage, Status, WatchEvent } from '../types.js';

export const RECORDING_KIND = 'KwatchRecording';
/**
 * 2 added `resource` lines (a resource first met mid-recording: `reconcile --exec --record` learns the kinds as the
 * controller asks for them, so its header may list none) and `write` lines (what a controller wrote). Format 1 files
 * read as before.
 */
export const RECORDING_FORMAT_VERSION = 2;
/** What a recording whose header lists every resource is written as, so that a kwatch reading format 1 reads it too. */
export const RECORDING_FORMAT_FIXED_RESOURCES = 1;

/** Whether a file's first bytes are a kwatch recording's header line (`{"kind":"KwatchRecording",…`). */
export function isKwatchRecording(head: string): boolean {
  return /^\s*\{\s*"kind"\s*:\s*"KwatchRecording"/.test(head);
}

/** First line of every recording. */
export interface RecordingHeader {
  kind: typeof RECORDING_KIND;
  formatVersion: number;
  kwatchVersion: string;
  /** Server URL the recording was taken from. */
  server: string;
  /** What was watched: one entry per resource (events can watch several). */
  resources: { group: string; version: string; resource: string; kind: string; namespaced: boolean; namespace?: string; labelSelector?: string; fieldSelector?: string }[];
  /** RFC 3339 time the recording started. */
  startTime: string;
  /** True when Secret data and tokens were masked (the default). */
  masked: boolean;
  /**
   * How the recording's informers treated a watch-list whose initial-events-end bookmark did not come
   * (--initial-events-timeout, --fallback): a replay's reflector reaches `no-initial-events-end`, and falls back,
   * where the live one did. Optional, so format 1 and 2 readers ignore it; absent with --no-watch-list and in
   * recordings made before kwatch kept it (their replay keeps the reflector's defaults).
   */
  watchList?: RecordedWatchListSettings;
}

/** The live reflector's watch-list bound and fallback, as the header keeps them. */
export interface RecordedWatchListSettings {
  initialEventsEndTimeoutMs: number;
  fallbackWithoutInitialEventsEnd: boolean;
}

/**
 * Body lines. `t` is milliseconds since startTime; `conn` numbers requests (a LIST page or a watch
 * connection) so replay can rebuild connection boundaries; `res` indexes header.resources.
 */
export type RecordingEntry =
  | { rec: 'list'; t: number; res: number; conn: number; options: ListOptions; page: ListPage; bytes?: number; ms?: number }
  | { rec: 'watch-start'; t: number; res: number; conn: number; options: ListOptions }
  | { rec: 'event'; t: number; res: number; conn: number; event: WatchEvent }
  | { rec: 'watch-end'; t: number; res: number; conn: number; reason: 'eof' | 'error' | 'aborted'; error?: string }
  | { rec: 'error'; t: number; res: number; conn: number; op: 'list' | 'watch'; options: ListOptions; status?: Status; message: string; bytes?: number };

/** Entries that describe the recording rather than what a resource's informer was sent: replay reads them apart. */
export type RecordingNote =
  /** Declares resource `res` (the next index after the header's and earlier `resource` lines'). */
  | { rec: 'resource'; t: number; res: number; conn: 0; resource: RecordingHeader['resources'][number] }
  /** A write a controller sent (reconcile --exec --record): the verb, the object's key, the answer's code, the object stored. */
  | { rec: 'write'; t: number; res: number; conn: 0; client: string; verb: string; key: string; code: number; mode: string; object?: unknown };

export type RecordingLine = RecordingHeader | RecordingEntry;
