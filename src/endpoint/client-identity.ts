// Which client a connection belongs to, from the process behind it (peer-process.ts). A client is a program: two
// long-running processes (two controllers, patroni beside patronictl) are two clients, one process is one client
// whatever HTTP libraries it uses (ruby-kubeclient lists with rest-client and watches with http.rb), and the
// successive commands a shell script runs (its kubectl calls, a `get -w` piped into a loop of `patch`es) are one
// client, so that a write can be linked to the event that triggered it in another call. The rule:
// - forks that did not exec (a shell's subshells, a Python worker) count as the process they were forked from;
// - the --exec'd command itself is one client;
// - any other process is grouped with the other runs of the same program by the same programs above it (`group`:
//   `kubectl < loop.sh < sh[PID of the root]`, wrappers such as `timeout` left out, so that a helper script run once
//   per item, or `timeout 5 kubectl …`, stays with the script's other calls); the registry tells such runs apart by
//   User-Agent too (two `curl -A` identities of one script are two clients), but a process already known stays with
//   its client whatever User-Agent its next connection sends. Two processes of one program, run the same way, with
//   one User-Agent are therefore one client, also when they run at once (two identical replicas started by one shell
//   are merged).
import { basename } from 'node:path';
import type { PeerAncestry, ProcessLink } from './peer-process.js';

export interface ClientIdentity {
  /** The --exec'd command itself. */
  root: boolean;
  /** The program and the parent that ran it (for the root: its pid): what the registry groups by. */
  group: string;
  /** The program's name (the client is named `program[PID]`, PID its first process). */
  program: string;
  /** The process behind this connection. */
  pid: number;
}

/** Programs that only run another one: a command under `timeout 5 kubectl …` belongs with the script's other calls. */
const WRAPPERS = new Set(['timeout', 'env', 'nice', 'nohup', 'stdbuf', 'setsid', 'xargs', 'time', 'ionice', 'chrt', 'taskset', 'flock', 'unbuffer', 'script']);
const SHELL = /^(sh|bash|dash|zsh|ksh|ash)$/;
/** Interpreters whose program is the script they run, not themselves. */
const INTERPRETER = /^(python[\d.]*|ruby[\d.]*|node|nodejs|perl[\d.]*|sh|bash|dash|zsh|ksh|ash|php[\d.]*|bun|deno)$/;

export function clientIdentity(chain: PeerAncestry): ClientIdentity | undefined {
  if (chain.length === 0) return undefined;
  const last = chain.length - 1;
  const peer = chain[0].pid;
  let i = 0;
  while (i < last && sameImage(chain[i], chain[i + 1])) i++;
  if (i === last) return { root: true, group: String(chain[last].pid), program: programName(chain[last].argv), pid: peer };
  const program = programName(chain[i].argv);
  // The programs that ran it, up to the root: forks folded into their image, wrappers (timeout, env, …) left out.
  const callers: string[] = [];
  for (let k = i + 1; k <= last; k++) {
    if (k < last && sameImage(chain[k], chain[k + 1])) continue;
    const name = programName(chain[k].argv);
    if (k === last) callers.push(`${name}[${chain[k].pid}]`);
    else if (!WRAPPERS.has(name)) callers.push(name);
  }
  return { root: false, group: [program, ...callers].join(' < '), program, pid: peer };
}

/** A fork that did not exec: the same command line as its parent. */
function sameImage(a: ProcessLink, b: ProcessLink): boolean {
  return a.argv.length === b.argv.length && a.argv.every((x, k) => x === b.argv[k]);
}

/**
 * ["/usr/bin/kubectl", "get", …] → "kubectl"; ["/usr/bin/python3", "/usr/bin/patroni", "x.yml"] → "patroni";
 * ["python3", "-m", "kopf", …] → "kopf"; ["python3", "-c", "…"] → "python3".
 */
export function programName(argv: readonly string[]): string {
  const self = basename(argv[0] ?? '') || 'unknown';
  if (!INTERPRETER.test(self)) return self;
  for (let k = 1; k < argv.length; k++) {
    const a = argv[k];
    // Python's -m names the module run; a shell's -m is job control (monitor mode), with no argument.
    if (a === '-m' && !SHELL.test(self) && argv[k + 1]) return argv[k + 1];
    // Inline code: `-c` (sh, python), `-e` (ruby, perl, node; a shell's -e is errexit).
    if (a === '-c' || ((a === '-e' || a === '--eval') && !SHELL.test(self)) || a === '-') return self;
    if (a === '--') return argv[k + 1] ? basename(argv[k + 1]) : self;
    if (!a.startsWith('-')) return basename(a);
  }
  return self;
}
