// kwatch trace open: a Perfetto file served to ui.perfetto.dev, or an HTML report opened in the browser.
import { Args, Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { TraceFileCommand } from '../../cli/trace-command.js';
import { UserError } from '../../cli/user-error.js';

export default class TraceOpen extends TraceFileCommand {
  static override summary = 'Open a --trace-out picture: a Perfetto file in ui.perfetto.dev (served from 127.0.0.1:9001), an HTML report in the browser.';
  static override description = `For a Perfetto file (.json, .json.gz), serves it on 127.0.0.1 port 9001 — the only port ui.perfetto.dev's policy lets it fetch from — with Access-Control-Allow-Origin: https://ui.perfetto.dev, prints https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/NAME and opens it in a browser where there is one. Nothing is uploaded: the UI runs in the browser and reads the file from this machine. It stops once the file was fetched, or on Ctrl-C.

For an HTML report (.html), opens it (it works offline). --no-browser only prints the address.`;
  static override examples = ['<%= config.bin %> trace open run.json', '<%= config.bin %> trace open report.html --no-browser'];
  static override args = {
    file: Args.string({ description: 'A Perfetto file (.json, .json.gz) or an HTML report (.html) made with --trace-out or kwatch trace convert.', required: true }),
  };
  static override flags = {
    'no-browser': Flags.boolean({ description: 'Only print the address; open no browser.', default: false }),
    port: Flags.integer({ description: 'The port to serve a Perfetto file on (ui.perfetto.dev fetches only from 9001; 0 picks a free one, for other viewers).', default: 9001, min: 0, max: 65_535 }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TraceOpen);
    const { existsSync } = await import('node:fs');
    if (!existsSync(args.file)) throw new UserError(`${args.file}: no such file`);
    const { traceFormatOf } = await import('../../trace-export/trace-format.js');
    const format = traceFormatOf(args.file, undefined);
    const { openInBrowser } = await import('../../cli/open-browser.js');
    if (format === 'html') {
      const url = `file://${resolve(args.file)}`;
      process.stdout.write(`${url}\n`);
      if (!flags['no-browser']) openInBrowser(url);
      return;
    }
    if (format !== 'perfetto') throw new UserError(`${args.file}: kwatch trace open opens a Perfetto file (.json, .json.gz) or an HTML report (.html); an OTLP file goes to Jaeger's or Grafana's trace upload`);
    const { servePerfettoFile } = await import('../../trace-export/perfetto-server.js');
    let served;
    try {
      served = await servePerfettoFile(args.file, flags.port);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
    process.stdout.write(`${served.openUrl}\n`);
    process.stderr.write(`kwatch: serving ${args.file} at ${served.url} until it was fetched (Ctrl-C stops)\n`);
    if (!flags['no-browser']) openInBrowser(served.openUrl);
    const interrupted = new Promise<void>((r) => {
      process.once('SIGINT', r);
      process.once('SIGTERM', r);
    });
    await Promise.race([served.fetched, interrupted]);
    await served.close();
  }
}
