// Entry point shared by bin/run.js (kwatch) and bin/kubectl-kwatch (the kubectl plugin): the only
// difference is the name help and usage lines use. `--version` and `<command> --help` are answered
// here from package.json and oclif.manifest.json, without importing oclif (~3x Node's own start-up).
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { PJSON } from '@oclif/core/interfaces';
import { guardStdout } from './stdout-guard.js';
import { keepTerminalControlsToTerminals } from './terminal-controls.js';
import { didYouMean, suggestionsFor } from './suggest.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliOptions {
  bin: 'kwatch' | 'kubectl kwatch';
  argv?: string[];
  /**
   * package.json as the single executable carries it (scripts/package): there is no package folder to
   * read it, nor the manifest, from. oclif then finds the commands in the bundle's command map.
   */
  pjson?: PJSON;
  /** oclif.manifest.json as the single executable carries it, for shell completion (no manifest file beside it). */
  manifest?: object;
}

export async function runCli(opts: CliOptions): Promise<void> {
  guardStdout();
  keepTerminalControlsToTerminals(process.stderr);
  let argv = opts.argv ?? process.argv.slice(2);
  if (argv[0] === '__complete' || argv[0] === '__completeNoDesc') return completeRequest(argv, opts.manifest);
  // `source <(kwatch completion bash)` runs in every new shell: answered without loading oclif too.
  if (argv.length === 2 && argv[0] === 'completion') {
    const { SHELLS, completionScript } = await import('./completion/shell-scripts.js');
    const shell = SHELLS.find((s) => s === argv[1]);
    if (shell) return void process.stdout.write(completionScript(shell, 'kwatch'));
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === 'version')) {
    const version = fastVersion(opts.pjson);
    if (version) return void process.stdout.write(`${version}\n`);
    argv = ['--version'];
  }
  // `kwatch -h` and `kwatch help` are the root help, as `kwatch --help` is.
  if (argv.length === 1 && (argv[0] === '-h' || argv[0] === 'help')) argv = ['--help'];
  const help = helpRequest(argv);
  if (help) {
    if (!opts.pjson && (await fastHelp(help.words, opts.bin))) return;
    argv = help.oclifArgv;
  }
  const { Config, run, flush, handle } = await import('@oclif/core');
  const config = await Config.load(opts.pjson ? { root: dirname(process.execPath), pjson: opts.pjson, isRoot: true } : { root: packageRoot });
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
}

/** Shell completion (cobra's protocol): answered without loading oclif, as fast as a TAB needs. */
async function completeRequest(argv: string[], manifest: object | undefined): Promise<void> {
  const { runComplete } = await import('./completion/run-complete.js');
  const text = await runComplete(argv.slice(1), { manifest: manifest ?? join(packageRoot, 'oclif.manifest.json'), descriptions: argv[0] === '__complete' });
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  // A request abandoned at the deadline may still hold a socket: the answer is out, so leave now.
  process.exit(0);
}

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

/** oclif's user agent line: kwatch/0.1.0 linux-x64 node-v20.18.0. */
function fastVersion(pjson?: PJSON): string | undefined {
  try {
    const pkg = pjson ?? (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string });
    return `${pkg.name}/${pkg.version} ${platform}-${arch === 'ia32' ? 'x86' : arch} node-${process.version}`;
  } catch {
    return undefined;
  }
}

interface HelpRequest {
  /** The words before the first flag: the command id, possibly with arguments after it. */
  words: string[];
  /** The same request as oclif understands it (`help X` and `-h` become `X --help`). */
  oclifArgv: string[];
}

/** `X --help`, `X -h` (before any `--`) and `help X`; undefined for anything else. */
export function helpRequest(argv: string[]): HelpRequest | undefined {
  if (argv[0] === 'help' && argv.length > 1 && !argv[1].startsWith('-')) {
    const words = argv.slice(1).filter((a) => !a.startsWith('-'));
    return { words, oclifArgv: [...words, '--help'] };
  }
  const end = argv.indexOf('--');
  const head = end === -1 ? argv : argv.slice(0, end);
  if (!head.includes('--help') && !head.includes('-h')) return undefined;
  const words: string[] = [];
  for (const a of head) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  if (words.length === 0) return undefined; // root help: oclif's
  return { words, oclifArgv: argv.map((a, i) => (a === '-h' && (end === -1 || i < end) ? '--help' : a)) };
}

/** Prints the command's help from the manifest; false when it cannot (no manifest, unknown command). */
async function fastHelp(words: string[], bin: string): Promise<boolean> {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(packageRoot, 'oclif.manifest.json'), 'utf8')) as import('./oclif-manifest.js').Manifest;
  } catch {
    return false;
  }
  // The longest run of leading words naming a command (topic separator is a space).
  let cmd;
  for (let n = words.length; n > 0 && !cmd; n--) cmd = manifest.commands[words.slice(0, n).join(':')];
  if (!cmd) return false;
  const { renderCommandHelp, helpWidth } = await import('./fast-help.js');
  const env = process.env;
  const color = process.stdout.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
  const text = renderCommandHelp(cmd, { bin, width: helpWidth(process.stdout, env), color });
  if (text === undefined) return false;
  process.stdout.write(text);
  return true;
}
