// `kwatch events`: a reflector's 410 explained in words on stderr, as `replay --from-rv` explains one — what the
// server still has, why, what the reflector does next, and, after a watch that closed with no event, the bookmarks.
import type { TraceRecord } from '../informer/trace.js';
import { explainWatchExpiry, type PreviousWatch } from '../kube/recording/expired-resource-version.js';

/** What client-go's reflector (and ours) does after a 410, in words. */
const RELIST_NEXT =
  'The reflector lists the current state again (a relist, as client-go does) and replaces its cache with it: objects changed in the gap reach the handlers as updates, and objects deleted in it as tombstones (DeletedFinalStateUnknown).';

/** Follows one run's reflector records; explain() answers each `expired` record with its explanation. */
export class ExpiryExplainer {
  /** By informer name: the RV each open watch started at, and the last watch that closed. */
  private readonly started = new Map<string, Map<number, string>>();
  private readonly closed = new Map<string, PreviousWatch[]>();

  /** The explanation of an `expired` record (one line), else undefined; every reflector record should pass through. */
  explain(r: TraceRecord): string | undefined {
    if (r.stage !== 'reflector') return undefined;
    const name = String(r.name ?? r.resource ?? '');
    const conn = typeof r.conn === 'number' ? r.conn : undefined;
    if (r.op === 'watch-start' && conn !== undefined) {
      let byConn = this.started.get(name);
      if (!byConn) this.started.set(name, (byConn = new Map()));
      byConn.clear();
      byConn.set(conn, String(r.rv ?? ''));
      return undefined;
    }
    if (r.op === 'watch-close' && conn !== undefined) {
      const rv = this.started.get(name)?.get(conn) || undefined;
      const last = this.closed.get(name)?.at(-1);
      this.closed.set(name, [...(last ? [last] : []), { conn, events: typeof r.events === 'number' ? r.events : 0, ms: typeof r.ms === 'number' ? r.ms : 0, resourceVersion: rv }]);
      return undefined;
    }
    if (r.op !== 'expired') return undefined;
    // A list at an RV that expired is retried at once from the latest state; a watch's 410 leads to a relist.
    const next = r.during === 'list' ? 'The reflector lists again at once, from the latest state.' : RELIST_NEXT;
    // A 410 inside a watch closes that watch first (its watch-close has the same conn): the one before it is the previous.
    const closes = (this.closed.get(name) ?? []).filter((c) => c.conn !== conn);
    const previous = r.during === 'list' ? undefined : closes.at(-1);
    this.closed.delete(name);
    const text = explainWatchExpiry({ requested: r.rv ? String(r.rv) : undefined, serverMessage: String(r.error ?? ''), next, previous, askedBookmarks: true });
    return `kwatch: ${name ? `${name}: ` : ''}${text}`;
  }
}
