// Whether --live can draw its dashboard here, in a module of its own: every events/index run asks, and only the
// runs that draw should load the live session (its summary, snapshots and, through them, ink).
import { inkDrawsLive } from '../render/live-table.js';

/**
 * Why --live cannot draw here (it falls back to the plain trace), or undefined when it can: the
 * dashboard needs a terminal on both ends (keys come from stdin), outside CI (ink draws no frames
 * there) and a terminal that understands cursor movement.
 */
export function liveUnavailable(stdout: { isTTY?: boolean }, stdin: { isTTY?: boolean }, env: NodeJS.ProcessEnv): string | undefined {
  if (stdout.isTTY !== true || stdin.isTTY !== true) return 'not a terminal';
  if (!inkDrawsLive(env)) return 'CI is set';
  if (env.TERM === 'dumb') return 'TERM=dumb';
  return undefined;
}

/** True when --live can draw here; else says why in one line on `err` (the run shows `fallback` instead) and answers false. */
export function canDrawLive(out: { isTTY?: boolean }, err: NodeJS.WritableStream, fallback = 'the plain trace'): boolean {
  const why = liveUnavailable(out, process.stdin, process.env);
  if (why === undefined) return true;
  err.write(`--live needs a terminal (${why}): showing ${fallback}\n`);
  return false;
}
