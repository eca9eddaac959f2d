// The commands' path: oclif parses the flags and runs the command. main.ts answers what needs no oclif
// (--version, a command's help, completion) before it loads this; the npm CLI loads it from dist/kwatch.cjs,
// the whole CLI in one file (scripts/bundle), so that a run reads and compiles one file.
import { Config, flush, handle, run, settings } from '@oclif/core';
import type { PJSON } from '@oclif/core/interfaces';
import { didYouMean, suggestionsFor } from './suggest.js';

export interface OclifRunOptions {
  bin: 'kwatch' | 'kubectl kwatch';
  /** oclif's root: the package folder, or the single executable's folder (which holds no package.json). */
  root: string;
  /** package.json as a bundle carries it: oclif then finds the commands in the bundle's command map. */
  pjson?: PJSON;
}

export type OclifRunner = (argv: string[], opts: OclifRunOptions) => Promise<void>;

export const runOclif: OclifRunner = async (argv, opts) => {
  // The commands are always the compiled ones. Left to itself, oclif under NODE_ENV=development or test (a JS
  // developer's shell, every vitest run) looks for tsx and ts-node and parses tsconfig.json with the TypeScript
  // compiler where one can be found (in this repository: ~0.25 s of CPU, as much as the rest of a short run).
  settings.enableAutoTranspile = false;
  const config = await Config.load(opts.pjson ? { root: opts.root, pjson: opts.pjson, isRoot: true } : { root: opts.root });
  // run() reloads a Config it is given, keeping only its plugins: the bin must live in the root plugin's pjson too.
  config.bin = opts.bin;
  config.pjson.oclif.bin = opts.bin;
  try {
    await run(argv, config);
    await flush();
  } catch (err) {
    const unknown = unknownCommandMessage(err, argv, config.commandIDs, opts.bin);
    if (unknown === undefined) return void (await handle(err as Error));
    process.stderr.write(unknown);
    process.exitCode = 1;
  }
};

/**
 * cobra's answer to a command that does not exist, with its suggestions:
 * `error: unknown command "evnts" for "kwatch"`, then "Did you mean this?" and the close ones.
 */
export function unknownCommandMessage(err: unknown, argv: string[], commandIds: string[], bin: string): string | undefined {
  if (!(err instanceof Error) || !/^command \S+ not found$/.test(err.message)) return undefined;
  const typed = argv.find((a) => !a.startsWith('-')) ?? argv[0] ?? '';
  const topLevel = [...new Set(commandIds.map((id) => id.split(':')[0]))];
  const what = typed.startsWith('-') ? `unknown flag: ${typed.replace(/=.*$/, '')}` : `unknown command "${typed}" for "${bin}"`;
  const suggestions = typed.startsWith('-') ? [] : suggestionsFor(typed, topLevel);
  // As kubectl: an unknown flag points at the help, an unknown command at its close names (if any).
  return typed.startsWith('-') ? `error: ${what}\nSee '${bin} --help' for usage.\n` : `error: ${what}\n${didYouMean(suggestions)}${suggestions.length ? '\n' : ''}`;
}
