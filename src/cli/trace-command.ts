// The base of the `kwatch trace` commands: they read files, not a cluster, so they take none of the connection's
// global flags (and -o is their output file); errors are one line and exit 1, as in every command.
import { CommandLineArgsCommand } from './args-without-stdin.js';
import { describeError } from './error-message.js';
import { isParseError, parseErrorMessage, type OclifParseError } from './parse-error.js';

/** Arguments come from the command line only (args-without-stdin.ts). */
export abstract class TraceFileCommand extends CommandLineArgsCommand {
  protected override async catch(err: Error): Promise<any> {
    if ((err as { code?: string }).code === 'EEXIT') throw err;
    if (isParseError(err)) {
      process.stderr.write(`error: ${parseErrorMessage(err as OclifParseError, { bin: this.config.bin, id: this.id ?? 'trace', flagNames: Object.keys(this.ctor.flags ?? {}) })}\n`);
      this.exit(1);
    }
    process.stderr.write(`error: ${describeError(err).message}\n`);
    this.exit(1);
  }
}
