// Opening a recording file for `events --record` and `reconcile --record`: its header (server, what was
// watched, whether secrets are masked) and the redaction every line goes through unless --show-secrets.
import type { RecordedWatchListSettings, RecordingEntry, RecordingHeader, RecordingNote } from '../informer/recording/recording-format.js';
import { isKwatchRecording, RECORDING_FORMAT_FIXED_RESOURCES, RECORDING_FORMAT_VERSION, RECORDING_KIND } from '../informer/recording/recording-format.js';
import { refuseForeignFile } from '../kube/recording/own-file.js';
import { RecordingFile } from '../kube/recording/recording-file.js';
import { cutNestingBelow, MAX_NESTING_DEPTH, NestingTooDeepError } from '../informer/nesting.js';
import { maskSecrets } from '../render/secrets.js';
import { UserError } from './user-error.js';

export type RecordedResource = RecordingHeader['resources'][number];

export interface OpenRecordingOptions {
  server: string;
  resources: RecordedResource[];
  showSecrets: boolean;
  kwatchVersion: string;
  /** A write failed (the disk is full…): the caller stops its run. */
  onFailure: () => void;
  /** The kinds by resource index, when resources are declared as they come (format 2 `resource` lines): filled by the caller. */
  kinds?: string[];
  /** The informers' watch-list bound and --fallback (undefined with --no-watch-list): a replay's reflector takes the same. */
  watchList?: RecordedWatchListSettings;
}

/** Before anything runs: an existing file at `path` that is not a kwatch recording is left untouched (--force replaces it). */
export function refuseForeignRecording(path: string): void {
  refuseForeignFile(path, isKwatchRecording, 'recording');
}

/** Creates the file (0600, a regular file only) and writes its header; a path that cannot be written is one UserError line. */
export function openRecording(path: string, o: OpenRecordingOptions): RecordingFile {
  const header: Omit<RecordingHeader, 'startTime'> = {
    kind: RECORDING_KIND,
    formatVersion: o.kinds ? RECORDING_FORMAT_VERSION : RECORDING_FORMAT_FIXED_RESOURCES,
    kwatchVersion: o.kwatchVersion,
    server: o.server,
    resources: o.resources,
    masked: !o.showSecrets,
    ...(o.watchList ? { watchList: o.watchList } : {}),
  };
  const kinds = o.kinds ?? o.resources.map((r) => r.kind);
  try {
    return new RecordingFile(path, header, { redact: (entry) => redactEntry(entry as RecordingEntry | RecordingNote, kinds, o.showSecrets) as typeof entry, onFailure: o.onFailure });
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}

/**
 * Masks Secret values and tokens (unless --show-secrets), and cuts an entry nested deeper than kwatch follows. Items of a typed list carry no kind on a real server, so list
 * pages of Secrets are masked as Secrets by their resource's kind.
 */
function redactEntry<E extends RecordingEntry | RecordingNote>(entry: E, kinds: string[], reveal: boolean): E {
  const assumeKind = 'res' in entry ? kinds[entry.res] : undefined;
  try {
    return maskSecrets(entry, { reveal, assumeKind });
  } catch (e) {
    if (!(e instanceof NestingTooDeepError)) throw e;
    // The entry stays (a recording without it would replay a different stream), cut where kwatch stops following.
    process.stderr.write(`Warning: a recorded ${entry.rec} is ${e.message}: recorded with what lies deeper replaced by "${TOO_DEEP_MARKER}"\n`);
    return maskSecrets(cutNestingBelow(entry, MAX_NESTING_DEPTH, TOO_DEEP_MARKER) as E, { reveal, assumeKind });
  }
}

const TOO_DEEP_MARKER = `<nested deeper than ${MAX_NESTING_DEPTH} levels: not recorded>`;
