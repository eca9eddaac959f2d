// Runs the built CLI (node bin/run.js) as a child process for e2e tests: one-shot runs, and long
// runs whose -o ndjson output is parsed as it arrives and polled with a bound.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
import { KUBECTL } from '../kubectl-lookup.js';

export { KUBECTL };

export interface Result {
  stdout: string;
  stderr: string;
  code: number;
  /** The signal that ended the process, when one did: SIGTERM when it outlived the run's bound and was killed. */
  signal?: NodeJS.Signals;
}

/** The env every child gets: test/setup.ts's HOME/KUBECONFIG/KUBECACHEDIR plus overrides. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', ...extra };
}

/**
 * Runs a command to its end; one still running after `timeoutMs` (a generous bound for a loaded machine) is killed.
 * Output is kept up to 512 MB: execFile's default of 1 MB kills a chatty run (a self-triggering reconciler prints
 * megabytes in a second) and leaves its stderr empty and its folders behind.
 */
export function run(cmd: string, args: string[], env: Record<string, string>, input?: string, timeoutMs = 30_000): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env: childEnv(env), timeout: timeoutMs, maxBuffer: 512 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({
        stdout,
        stderr,
        code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0,
        // Only when a signal ended it, so that a finished run still equals { code, stdout, stderr }.
        ...((err as { signal?: NodeJS.Signals | null } | null)?.signal ? { signal: (err as { signal: NodeJS.Signals }).signal } : {}),
      }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

export const kwatch = (args: string[], env: Record<string, string>) => run(process.execPath, [BIN, ...args], env);
export const kubectl = (args: string[], env: Record<string, string>, input?: string) => run(KUBECTL, args, env, input);

export interface Rec {
  time: string;
  stage: string;
  op: string;
  key: string | null;
  rv: string | null;
  type?: string;
  [k: string]: unknown;
}

/** A running `kwatch … -o ndjson`: records so far, a bounded wait, and a stop by signal. */
export class Running {
  readonly records: Rec[] = [];
  /** Every stdout line (records are the ones holding JSON). */
  readonly lines: string[] = [];
  stderr = '';
  private buf = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly child: ChildProcess;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [BIN, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.buf += d;
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        this.lines.push(line);
        if (line.startsWith('{')) this.records.push(JSON.parse(line) as Rec);
      }
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Polls (every 20 ms, at most `ms`) until some record matches; returns it or throws with what was seen. */
  async waitFor(pred: (r: Rec) => boolean, what: string, ms = 10_000): Promise<Rec> {
    let hit: Rec | undefined;
    await this.until(() => (hit = this.records.find(pred)) !== undefined, what, ms);
    return hit!;
  }

  /** Polls (every 20 ms, at most `ms`) until `cond` holds; throws with what was seen when the bound passes or the run ends. */
  async until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`timed out waiting for ${what}; stderr: ${this.stderr}\nlast records: ${this.records.slice(-8).map((r) => JSON.stringify(r)).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null) this.child.kill(signal);
    return this.exited;
  }

  wait(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }
}

export const isSynced = (r: Rec) => r.stage === 'reflector' && r.op === 'synced';
export const of = (recs: Rec[], key: string) => recs.filter((r) => r.key === key);
