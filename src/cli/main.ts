// Entry point shared by bin/run.js (kwatch) and bin/kubectl-kwatch (the kubectl plugin): the only
// difference is the name help and usage lines use. `--version` and `<command> --help` are answered
// here from package.json and oclif.manifest.json, without importing oclif (~3x Node's own start-up);
// everything else runs through oclif (oclif-run.ts).
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { PJSON } from '@oclif/core/interfaces';
import { guardStdout } from './stdout-guard.js';
import { keepTerminalControlsToTerminals } from './terminal-controls.js';
import type { OclifRunner } from './oclif-run.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliOptions {
  bin: 'kwatch' | 'kubectl kwatch';
  argv?: string[];
  /**
   * package.json as a bundle carries it (scripts/bundle): oclif then finds the commands in the bundle's
   * command map, not in dist/commands.
   */
  pjson?: PJSON;
  /** oclif.manifest.json as the single executable carries it (no manifest file beside it). */
  manifest?: object;
  /** oclif's root: the package folder, or the single executable's folder (which holds no package.json). */
  root?: string;
  /**
   * Where the commands' path comes from: the npm CLI's bin/ loads dist/kwatch.cjs (the whole CLI in one
   * file) only once --version, help and completion are ruled out; without it, this build's oclif-run.js.
   */
  oclif?: () => Promise<OclifRunner>;
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
    if (await fastHelp(help.words, opts.bin, opts.manifest)) return;
    argv = help.oclifArgv;
  }
  const runOclif = opts.oclif ? await opts.oclif() : (await import('./oclif-run.js')).runOclif;
  await runOclif(argv, { bin: opts.bin, root: opts.root ?? packageRoot, ...(opts.pjson ? { pjson: opts.pjson } : {}) });
}

/** Shell completion (cobra's protocol): answered without loading oclif, as fast as a TAB needs. */
async function completeRequest(argv: string[], manifest: object | undefined): Promise<void> {
  const { runComplete } = await import('./completion/run-complete.js');
  const text = await runComplete(argv.slice(1), { manifest: manifest ?? join(packageRoot, 'oclif.manifest.json'), descriptions: argv[0] === '__complete' });
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  // A request abandoned at the deadline may still hold a socket: the answer is out, so leave now.
  process.exit(0);
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
async function fastHelp(words: string[], bin: string, embedded: object | undefined): Promise<boolean> {
  let manifest;
  try {
    manifest = (embedded ?? JSON.parse(readFileSync(join(packageRoot, 'oclif.manifest.json'), 'utf8'))) as import('./oclif-manifest.js').Manifest;
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
