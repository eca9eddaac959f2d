// Breaking a response on purpose (a drop-connection fault, a target that broke off its answer) waits one turn: Node's
// http corks the socket until the next tick, so a destroy in the same tick as the last write loses those bytes — for a
// watch, the last events, which the trace already counts as delivered.
import type { ServerResponse } from 'node:http';

/** Destroys `res` (with `err`, when given) once what was written to it has gone out; then calls `then`. */
export function breakAfterWritten(res: ServerResponse, err?: Error, then?: () => void): void {
  setImmediate(() => {
    if (!res.destroyed) res.destroy(err);
    then?.();
  });
}
