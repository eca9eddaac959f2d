// `--speed`: how fast a recording is played, as `replay` and `reconcile --exec --from-recording` take it.
import { UserError } from './user-error.js';

/** max = as fast as possible (Infinity); otherwise a factor of the recorded pace (1 = as recorded, `10x` = ten times faster). */
export function parseSpeed(s: string): number {
  if (s === 'max') return Infinity;
  const n = Number(s.replace(/x$/, ''));
  if (!Number.isFinite(n) || n <= 0) throw new UserError(`invalid --speed "${s}": use max, or a factor such as 1, 0.5 or 10`);
  return n;
}
