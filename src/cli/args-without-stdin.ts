// oclif fills an argument left out from stdin whenever stdin is not a terminal (a pipe, any spawned process): it opens
// a readline on stdin and waits up to 10 ms for it, and whatever arrived in that window became the argument, so
// `echo x | kwatch events pods` watched a pod named x, or every pod, by timing. Every `events TYPE` run without a NAME
// paid the readline and the wait. kubectl never takes arguments from stdin; neither does kwatch.
// Both bases of kwatch's commands (KwatchCommand, TraceFileCommand) extend this one; `sim` and `completion` extend
// oclif directly and keep its default.
import { Command } from '@oclif/core';
import type { ArgInput, Input, ParserOutput } from '@oclif/core/interfaces';

/** oclif's FlagOutput and ArgOutput, which its interfaces do not export: parsed values by name. */
type ParsedByName = { [name: string]: any };

/** oclif's Command, with arguments from the command line only. */
export abstract class CommandLineArgsCommand extends Command {
  protected override async parse<F extends ParsedByName, B extends ParsedByName, A extends ParsedByName>(options?: Input<F, B, A>, argv?: string[]): Promise<ParserOutput<F, B, A>> {
    ignoreStdinForArgs((options ?? this.ctor).args);
    return super.parse(options, argv);
  }
}

/**
 * Marks each of a command's arguments as never read from stdin. In place: the parser's input is the command class
 * itself, whose other settings (inherited flags, strict) must reach the parser as they are.
 */
function ignoreStdinForArgs(args: ArgInput | undefined): void {
  for (const arg of Object.values(args ?? {})) arg.ignoreStdin = true;
}
