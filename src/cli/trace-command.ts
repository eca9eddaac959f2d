// The base of the `kwatch trace` commands: they read files, not a cluster, so they take none of the connection's
// global flags (and -o is their output file); errors are one line and exit 1, as in every command.
import { Command } from '@oclif/core';
import type { Input, ParserOutput } from '@oclif/core/interfaces';
import { ignoreStdinForArgs, type ParsedByName } from './args-without-stdin.js';
import { describeError } from './error-message.js';
import { isParseError, parseErrorMessage, type OclifParseError } from './parse-error.js';

export abstract class TraceFileCommand extends Command {
  /** Arguments come from the command line only (args-without-stdin.ts). */
  protected override async parse<F extends ParsedByName, B extends ParsedByName, A extends ParsedByName>(options?: Input<F, B, A>, argv?: string[]): Promise<ParserOutput<F, B, A>> {
    ignoreStdinForArgs((options ?? this.ctor).args);
    return super.parse(options, argv);
  }

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
