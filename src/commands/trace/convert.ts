// kwatch trace convert: an earlier run's trace (-o ndjson) or recording as a picture: Perfetto, OTLP or the HTML report.
import { Args, Flags } from '@oclif/core';
import { basename } from 'node:path';
import { TraceFileCommand } from '../../cli/trace-command.js';
import { UserError } from '../../cli/user-error.js';

export default class TraceConvert extends TraceFileCommand {
  static override summary = 'Turn an -o ndjson trace or a recording into a picture: Perfetto JSON, OTLP/JSON lines or the HTML report.';
  static override description = `Reads FILE, an -o ndjson trace of any kwatch command (a trace made before records had ids gets its ids and causes now) or a recording made with --record (replayed offline through the informer pipeline, as kwatch replay FILE does), and writes it as --to perfetto (Chrome Trace Event JSON for ui.perfetto.dev; .json.gz is gzipped), otlp (OTLP/JSON lines for Jaeger or Grafana) or html (the offline report: a lane per key, arrows write → echo → next write, loops, fights and other findings).

Without -o the output goes next to FILE: FILE's name with .json, .otlp.jsonl or .html.`;
  static override examples = [
    '<%= config.bin %> trace convert trace.ndjson --to html',
    '<%= config.bin %> trace convert trace.ndjson --to perfetto -o run.json.gz',
    '<%= config.bin %> trace convert pods.recording.ndjson --to otlp -o pods.otlp.jsonl',
  ];
  static override args = {
    file: Args.string({ description: 'An -o ndjson trace, or a recording (--record).', required: true }),
  };
  static override flags = {
    to: Flags.string({ description: 'The picture to write.', options: ['perfetto', 'otlp', 'html'], required: true }),
    output: Flags.string({ char: 'o', description: 'The file to write (default: FILE with the format\'s extension).' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TraceConvert);
    const format = flags.to as 'perfetto' | 'otlp' | 'html';
    const ext = { perfetto: '.json', otlp: '.otlp.jsonl', html: '.html' }[format];
    const out = flags.output ?? `${args.file.replace(/(\.ndjson|\.jsonl|\.json)?(\.gz)?$/, '')}${ext}`;
    if (out === args.file) throw new UserError(`-o ${out} would overwrite the input: name another file`);
    const { readTraceInput } = await import('../../cli/trace-input.js');
    const rows = await readTraceInput(args.file);
    const { writeTraceFile } = await import('../../trace-export/write-trace-file.js');
    try {
      writeTraceFile(out, rows, format, basename(args.file));
    } catch (e) {
      throw new UserError(`cannot write ${out}: ${(e as Error).message}`);
    }
    process.stderr.write(`kwatch: wrote ${rows.length} trace records to ${out} (${format})\n`);
  }
}
