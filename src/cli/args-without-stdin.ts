// oclif fills an argument left out from stdin whenever stdin is not a terminal (a pipe, any spawned process): it opens
// a readline on stdin and waits up to 10 ms for it, and whatever arrived in that window became the argument, so
// `echo x | kwatch events pods` watched a pod named x, or every pod, by timing. Every `events TYPE` run without a NAME
// paid the readline and the wait. kubectl never takes arguments from stdin; neither does kwatch.
import type { ArgInput } from '@oclif/core/interfaces';

/** oclif's FlagOutput and ArgOutput, which its interfaces do not export: parsed values by name. */
export type ParsedByName = { [name: string]: any };

/**
 * Marks each of a command's arguments as never read from stdin. In place: the parser's input is the command class
 * itself, whose other settings (inherited flags, strict) must reach the parser as they are.
 */
export function ignoreStdinForArgs(args: ArgInput | undefined): void {
  for (const arg of Object.values(args ?? {})) arg.ignoreStdin = true;
}
