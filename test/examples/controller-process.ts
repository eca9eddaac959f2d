// A controller process run by a test: its stderr log read line by line, bounded waits for a line, and a stop by
// SIGTERM that reports how it exited. Every process started here is killed by stopAll() (call it in afterEach).
import { spawn, type ChildProcess } from 'node:child_process';

const running = new Set<ControllerProcess>();

export class ControllerProcess {
  /** Every complete stderr line so far. */
  readonly lines: string[] = [];
  private partial = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(cmd: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      const parts = (this.partial + d).split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    running.add(this);
    void this.exited.then(() => running.delete(this));
  }

  /**
   * Polls (every 25 ms, at most `ms`) until a line after the first `from` lines matches; returns its index.
   * Throws with the log when the bound passes or the process exits first.
   */
  async waitForLine(pattern: RegExp | string, from = 0, ms = 20_000): Promise<number> {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = this.lines.findIndex((l, n) => n >= from && (typeof pattern === 'string' ? l.includes(pattern) : pattern.test(l)));
      if (i >= 0) return i;
      if (Date.now() > deadline || this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`no line matching ${String(pattern)} after line ${from} within ${ms} ms (exit ${this.child.exitCode ?? this.child.signalCode ?? 'none'}); log:\n${this.log()}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Lines after the first `from` that match. */
  linesMatching(pattern: RegExp, from = 0): string[] {
    return this.lines.slice(from).filter((l) => pattern.test(l));
  }

  log(): string {
    return [...this.lines, this.partial].join('\n');
  }

  /** Sends SIGTERM and waits (at most `ms`, then SIGKILL) for the exit. */
  async stop(ms = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the process to exit on its own (at most `ms`, then SIGKILL). */
  async exit(ms = 20_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Kills whatever a test left running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(2_000)));
}
