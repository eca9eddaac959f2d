// The controller process run behind the endpoint (`reconcile --exec -- CMD`): started in a process group of its own with
// KUBECONFIG on the endpoint and no in-cluster configuration, its output passed on (prefixed, to a file, or not at all),
// stopped with SIGTERM then SIGKILL after the grace period, and its last lines kept for the report when it fails.
import { spawn } from 'node:child_process';
import { accessSync, constants, createWriteStream, statSync, type WriteStream } from 'node:fs';
import { basename, delimiter, join } from 'node:path';

export type ChildOutput = { kind: 'passthrough' } | { kind: 'prefix' } | { kind: 'file'; path: string } | { kind: 'none' };

export interface ChildOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  output: ChildOutput;
  /** Where prefixed output goes (kwatch's stderr: its stdout carries the trace). */
  stderr: NodeJS.WritableStream;
  /** Dim the prefix (a terminal). */
  color: boolean;
  /**
   * Each line the child prints on stdout or stderr, as printed (reconcile spans are read from them). Not under
   * passthrough, where the child writes to kwatch's own stdout and stderr directly.
   */
  onLine?: (line: string) => void;
}

export interface ChildExit {
  /** The exit code; 127 when the command was not found, 126 when it could not be run; 128+N for a signal. */
  code: number;
  signal?: string;
  /** Why it could not start. */
  error?: string;
  /** Whether kwatch asked it to stop. */
  stopped: boolean;
}

export interface RunningChild {
  name: string;
  pid?: number;
  readonly exited: Promise<ChildExit>;
  readonly running: boolean;
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves when it exited. */
  stop(graceMs: number): Promise<ChildExit>;
  /** Its last lines of output (stderr and stdout, interleaved as they came). */
  lastLines(): string[];
}

const KEPT_LINES = 20;
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/** The environment a controller process gets: KUBECONFIG on the endpoint, in-cluster config impossible. */
export function childEnvironment(base: NodeJS.ProcessEnv, kubeconfig: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, KUBECONFIG: kubeconfig };
  delete env.KUBERNETES_SERVICE_HOST;
  delete env.KUBERNETES_SERVICE_PORT;
  delete env.KUBERNETES_SERVICE_PORT_HTTPS;
  return env;
}

/**
 * Why `command` cannot be started (`command not found`, `permission denied`), or undefined when it can: asked before
 * anything starts, so that a typo is one line and exit 127 (126), as a shell says it.
 */
export function commandProblem(command: string, path: string | undefined): { code: number; message: string } | undefined {
  // An empty PATH entry is the working directory, as execvp (and Node's spawn) read it.
  const candidates = command.includes('/') ? [command] : path === undefined ? [] : path.split(delimiter).map((d) => join(d || '.', command));
  let found = false;
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      found = true;
      accessSync(c, constants.X_OK);
      return undefined;
    } catch { /* not here, or not runnable: the next one */ }
  }
  if (found) return { code: 126, message: `${command}: permission denied (not executable: chmod +x ${command}, or put its interpreter first, e.g. -- python3 ${command})` };
  // A shell looks a name without a slash up on PATH only; say so when the file meant is right here.
  const here = !command.includes('/') && isFile(command);
  return { code: 127, message: `${command}: command not found${here ? ` (a name without a slash is looked up on PATH: -- ./${command} runs the one in this folder)` : ''}` };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function startChild(o: ChildOptions): RunningChild {
  const name = basename(o.command);
  const kept: string[] = [];
  const keep = (line: string) => { kept.push(line); if (kept.length > KEPT_LINES) kept.shift(); };
  const passthrough = o.output.kind === 'passthrough';
  const child = spawn(o.command, o.args, { env: o.env, stdio: ['ignore', passthrough ? 'inherit' : 'pipe', passthrough ? 'inherit' : 'pipe'], detached: true });
  let file: WriteStream | undefined;
  if (o.output.kind === 'file') file = createWriteStream(o.output.path, { flags: 'a', mode: 0o600 });
  const prefix = o.color ? `\x1b[2m${name} |\x1b[0m ` : `${name} | `;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    let carry = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (carry + chunk.toString('utf8')).split('\n');
      carry = lines.pop() ?? '';
      for (const l of lines) emit(l);
    });
    stream.on('end', () => { if (carry) emit(carry); carry = ''; });
  }
  function emit(line: string): void {
    keep(line);
    o.onLine?.(line);
    if (o.output.kind === 'prefix') o.stderr.write(`${prefix}${o.color ? `\x1b[2m${line}\x1b[0m` : line}\n`);
    else if (file) file.write(`${line}\n`);
  }

  let running = true;
  let stopRequested = false;
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      running = false;
      const code = err.code === 'ENOENT' ? 127 : 126;
      const why = err.code === 'ENOENT' ? `${o.command}: command not found` : err.code === 'EACCES' ? `${o.command}: permission denied` : `${o.command}: ${err.message}`;
      resolve({ code, error: why, stopped: false });
    });
    child.once('close', (code, signal) => {
      running = false;
      file?.end();
      resolve({ code: code ?? 128 + (SIGNALS[signal ?? ''] ?? 1), ...(signal ? { signal } : {}), stopped: stopRequested });
    });
  });

  const signalGroup = (sig: NodeJS.Signals) => {
    if (!running || child.pid === undefined) return;
    try { process.kill(-child.pid, sig); } catch { try { child.kill(sig); } catch { /* gone */ } }
  };

  return {
    name,
    pid: child.pid,
    exited,
    get running() { return running; },
    async stop(graceMs) {
      if (running) {
        stopRequested = true;
        signalGroup('SIGTERM');
        const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
        const exit = await exited;
        clearTimeout(timer);
        return exit;
      }
      return exited;
    },
    lastLines: () => [...kept],
  };
}
