// The trace a `kwatch trace` command reads: an `-o ndjson` trace, or a recording (`--record`), which is replayed
// offline through the informer pipeline (as `kwatch replay FILE` does) to make its trace.
import { readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { TraceRow } from '../trace-export/trace-rows.js';
import { UserError } from './user-error.js';

export async function readTraceInput(path: string): Promise<TraceRow[]> {
  let buf: Buffer;
  try {
    if (!statSync(path).isFile()) throw new UserError(`${path} is not a file`);
    buf = readFileSync(path);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  if (buf[0] === 0x1f && buf[1] === 0x8b) buf = gunzipSync(buf);
  const text = buf.toString('utf8');
  const firstLine = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length);
  const { isKwatchRecording } = await import('../informer/recording/recording-format.js');
  if (isKwatchRecording(firstLine)) return replayed(path);
  if (/^\s*[[{]/.test(text) && /"traceEvents"|"resourceSpans"/.test(text.slice(0, 200))) {
    throw new UserError(`${path} is already a picture (Perfetto or OTLP): kwatch trace reads the -o ndjson trace or the recording it was made from`);
  }
  const { rowsFromNdjson, TraceFileError } = await import('../trace-export/trace-rows.js');
  try {
    return rowsFromNdjson(text, path);
  } catch (e) {
    if (e instanceof TraceFileError) throw new UserError(`${e.message} (give an -o ndjson trace or a --record recording)`);
    throw e;
  }
}

/** A recording replayed as fast as it goes, every stage traced. */
async function replayed(path: string): Promise<TraceRow[]> {
  const [{ loadRecording }, { replayRecording }, { Tracer }, { TraceCollector }] = await Promise.all([
    import('./replay-run.js'),
    import('../informer/recording/replay-recording.js'),
    import('../informer/trace.js'),
    import('../trace-export/trace-rows.js'),
  ]);
  const recording = loadRecording(path);
  const tracer = new Tracer();
  const collector = new TraceCollector(tracer);
  await replayRecording({ recording, tracer, signal: new AbortController().signal });
  return collector.stop();
}
