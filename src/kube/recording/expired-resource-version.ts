// Explains a 410 for a resourceVersion in words: what was asked, what the server still has, why, and
// what the user can do.

/** The requested and the oldest resumable resourceVersion, where the server's message says them. */
export function parseTooOldMessage(message: string): { requested?: string; oldest?: string } {
  // The watch cache: "too old resource version: 1000 (2345)", the number in brackets being the oldest it can resume from.
  const m = /too old resource version: (\d+) \((\d+)\)/.exec(message);
  return m ? { requested: m[1], oldest: m[2] } : {};
}

/** Why a server answers 410 for a resourceVersion it once sent. */
const WHY_EXPIRED = 'API servers keep only a window of recent changes (etcd compacts old revisions, every 5 minutes by default, and the watch cache holds a bounded number of events)';

/** The watch before the one that expired, as far as the caller saw it. */
export interface PreviousWatch {
  /** Its connection number, when known. */
  conn?: number;
  /** Events it delivered, bookmarks included. */
  events: number;
  ms: number;
  /** The resourceVersion it started at (and, with no events, still held). */
  resourceVersion?: string;
}

/**
 * A watch's 410 in words, as `replay --from-rv` explains one: what the server still has, why, and what the reflector
 * does next (`next`). When the watch before it closed with no event at all, its resourceVersion never moved: that is
 * linked to the bookmarks it did not ask for, or that the server did not send.
 */
export function explainWatchExpiry(o: { requested?: string; serverMessage: string; next: string; previous?: PreviousWatch; askedBookmarks: boolean }): string {
  const { oldest } = parseTooOldMessage(o.serverMessage);
  const asked = o.requested ? `resourceVersion ${o.requested} is too old` : 'the resourceVersion is too old';
  const where = oldest ? `; the oldest it can still resume from is ${oldest}` : '';
  let text = `${asked}: the server no longer has the changes after it${where} (server said: "${o.serverMessage.replace(/[.\s]+$/, '')}"). ${WHY_EXPIRED}. ${o.next}`;
  const p = o.previous;
  if (p && p.events === 0) {
    const conn = p.conn !== undefined ? ` (conn ${p.conn})` : '';
    const rv = p.resourceVersion ?? o.requested;
    const bookmarks = o.askedBookmarks
      ? 'it asked for bookmarks (allowWatchBookmarks=true), but the server sent none'
      : 'it did not ask for bookmarks (allowWatchBookmarks=true), which a server sends about once a minute to move a quiet watch forward';
    text += ` The watch before it${conn} closed after ${(p.ms / 1000).toFixed(1)}s with events=0: nothing moved its resourceVersion${rv ? ` ${rv}` : ''} while nothing changed, so it fell out of that window; ${bookmarks}.`;
  }
  return text;
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
  const why = WHY_EXPIRED;
  const todo = o.relisting
    ? `listing the current state instead${o.baseline ? ', and comparing it with the baseline recording' : ''}`
    : `resume from a newer resourceVersion${oldest ? ` (${oldest} or later)` : ''}, or pass --on-expired relist to list the current state instead (with --baseline RECORDING to see what changed since ${o.requested})`;
  const message = `resourceVersion ${o.requested} of ${o.resource} is too old: the server no longer has the changes after it${where} (server said: "${o.serverMessage}"). ${why}, so the events since ${o.requested} cannot be replayed: ${todo}.`;
  return new ExpiredResourceVersionError(o.requested, oldest, message);
}
