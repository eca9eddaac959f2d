// Explains a 410 for a resourceVersion in words: what was asked, what the server still has, why, and
// what the user can do.

/** The requested and the oldest resumable resourceVersion, where the server's message says them. */
export function parseTooOldMessage(message: string): { requested?: string; oldest?: string } {
  // The watch cache: "too old resource version: 1000 (2345)", the number in brackets being the oldest it can resume from.
  const m = /too old resource version: (\d+) \((\d+)\)/.exec(message);
  return m ? { requested: m[1], oldest: m[2] } : {};
}

/** The resourceVersion a resume asked for is gone: the message is the explanation, in one line. */
export class ExpiredResourceVersionError extends Error {
  constructor(
    readonly resourceVersion: string,
    /** The oldest resourceVersion the server can still resume from, when it said so. */
    readonly oldest: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ExpiredResourceVersionError';
  }
}

/**
 * One line: `resourceVersion 12 of pods is too old: …`. `relisting` words the ending for a run that
 * goes on with --on-expired relist instead of stopping.
 */
export function explainExpired(o: { resource: string; requested: string; serverMessage: string; relisting?: boolean; baseline?: boolean }): ExpiredResourceVersionError {
  const { oldest } = parseTooOldMessage(o.serverMessage);
  const where = oldest ? `; the oldest it can still resume from is ${oldest}` : '';
  const why = `API servers keep only a window of recent changes (etcd compacts old revisions, every 5 minutes by default, and the watch cache holds a bounded number of events)`;
  const todo = o.relisting
    ? `listing the current state instead${o.baseline ? ', and comparing it with the baseline recording' : ''}`
    : `resume from a newer resourceVersion${oldest ? ` (${oldest} or later)` : ''}, or pass --on-expired relist to list the current state instead (with --baseline RECORDING to see what changed since ${o.requested})`;
  const message = `resourceVersion ${o.requested} of ${o.resource} is too old: the server no longer has the changes after it${where} (server said: "${o.serverMessage}"). ${why}, so the events since ${o.requested} cannot be replayed: ${todo}.`;
  return new ExpiredResourceVersionError(o.requested, oldest, message);
}
