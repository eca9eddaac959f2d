// --trace-out FILE (and --trace-format) for the commands that run a pipeline or an endpoint: the run's trace, with
// ids and causes, kept while it runs and written as a picture when the command ends, however it ends.
import { Flags } from '@oclif/core';
import type { Tracer } from '../informer/trace.js';
import { UserError } from './user-error.js';

export const traceOutFlags = {
  'trace-out': Flags.string({ description: 'Also write the run\'s trace as a picture to this file, when the command ends: .json or .json.gz for Perfetto (ui.perfetto.dev; kwatch trace open FILE), .otlp.jsonl for OpenTelemetry (Jaeger, Grafana), .html for an offline report (a lane per key, loops and fights found).' }),
  'trace-format': Flags.string({ description: 'With --trace-out: the picture format, when the file name does not tell it.', options: ['perfetto', 'otlp', 'html'] }),
};

/**
 * Subscribes to the tracer before the run starts, and registers the writing of the file for when the command ends.
 * The format is checked now: a name that says none is one line before anything runs.
 */
export async function startTraceOut(flags: { 'trace-out'?: string; 'trace-format'?: string }, tracer: Tracer, title: string, onCleanup: (fn: () => Promise<void>) => void): Promise<void> {
  const path = flags['trace-out'];
  if (path === undefined) {
    if (flags['trace-format'] !== undefined) throw new UserError('--trace-format says how to write --trace-out FILE: add --trace-out');
    return;
  }
  const { traceFormatOf, unknownFormatMessage } = await import('../trace-export/trace-format.js');
  const format = traceFormatOf(path, flags['trace-format']);
  if (!format) throw new UserError(unknownFormatMessage(path, '--trace-format'));
  const [{ TraceCollector }, { writeTraceFile }] = await Promise.all([import('../trace-export/trace-rows.js'), import('../trace-export/write-trace-file.js')]);
  const collector = new TraceCollector(tracer);
  onCleanup(async () => {
    const rows = collector.stop();
    try {
      writeTraceFile(path, rows, format, title, collector.dropped);
      process.stderr.write(`kwatch: wrote ${rows.length} trace records to ${path} (${format})${collector.dropped ? `; ${collector.dropped} more were dropped past the limit` : ''}\n`);
    } catch (e) {
      process.stderr.write(`kwatch: could not write --trace-out ${path}: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  });
}
