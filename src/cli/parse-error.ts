// oclif's parse errors (several lines ending "See more help with --help") as kubectl reports them: one
// `unknown flag: --x` / `invalid argument "v" for "--flag" flag: …` line, with cobra's suggestion block.
import { didYouMean, suggestionsFor } from './suggest.js';

export interface OclifParseError extends Error {
  flags?: string[];
  args?: { name: string }[];
}

/** True for the errors oclif's parser throws (their message ends with its help hint). */
export function isParseError(err: unknown): boolean {
  return err instanceof Error && /\nSee more help with --help$/.test(err.message);
}

/**
 * The message (after `error: `) for a parse error of command `id`, whose flags are `flagNames` (long
 * names) and `charFlags` (one-letter ones).
 */
export function parseErrorMessage(err: OclifParseError, cmd: { bin: string; id: string; flagNames: string[] }): string {
  const usage = `See '${cmd.bin} ${cmd.id.replaceAll(':', ' ')} --help' for usage.`;
  const text = err.message.replace(/\nSee more help with --help$/, '');
  if (err.constructor.name === 'NonExistentFlagsError' && err.flags?.length) {
    const typed = err.flags[0];
    const name = typed.replace(/^-+/, '').replace(/=.*$/, '');
    const suggestions = typed.startsWith('--') ? suggestionsFor(name, cmd.flagNames).map((f) => `--${f}`) : [];
    return `unknown flag: ${typed.replace(/=.*$/, '')}\n${didYouMean(suggestions)}${suggestions.length ? '\n' : ''}${usage}`;
  }
  // A flag whose value did not parse: `Parsing --v \n\tExpected an integer but received: abc`.
  const value = /^Parsing --(\S+) \n\t([\s\S]*)$/.exec(text);
  if (value) {
    const received = /received: (.*)$/.exec(value[2]);
    const why = value[2].replace(/ but received: .*$/, '').replace(/^./, (c) => c.toLowerCase()).replace(/\s*\n\s*/g, '; ');
    return `invalid argument ${received ? `"${received[1]}" ` : ''}for "--${value[1]}" flag: ${why}`;
  }
  if (err.constructor.name === 'RequiredArgsError' && err.args?.length) return `missing the ${err.args.map((a) => a.name.toUpperCase()).join(', ')} argument (see '${cmd.bin} ${cmd.id.replaceAll(':', ' ')} --help')`;
  // The rest (exclusive flags, unexpected arguments): their lines joined into one.
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !/^The following errors? occurred:$/.test(l));
  return lines.join('; ');
}
