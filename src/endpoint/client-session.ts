// One client of the endpoint (a controller process, a shell script's kubectl calls, a leader-election client), known by
// the program behind its connections (client-identity.ts) or, where that cannot be read, by its User-Agent: what it was
// sent (the newest version of each object, the recent events), what it listed and watched, what it wrote. From
// these come the derived records: relist, stale-write, loop and stall.
import type { ScannedEvent } from './body-scan.js';
import type { ClientIdentity } from './client-identity.js';
import { HeldPages, type HeldPage } from './held-pages.js';
import type { SentObject } from './sent-object.js';

/** An event the client was sent, kept for a while to name the likely trigger of its writes. */
export interface RecentEvent {
  time: number;
  resource: string;
  type: string;
  key: string;
  rv?: string;
  uid?: string;
  readonly owners: readonly string[];
  /**
   * The echo of one of this client's own writes. Decided when asked, not on arrival: a write's watch event can reach
   * the client before the write's own answer does.
   */
  own: boolean;
}

/**
 * A watch event as kept among the recent ones, its owners read when a write asks (most events never are). A class, not
 * an object literal with a getter: V8 builds such a literal through the runtime, ~1 µs per event on a replay.
 */
class DeliveredEvent implements RecentEvent {
  own = false;
  readonly uid?: string;

  constructor(readonly time: number, readonly resource: string, readonly type: string, readonly key: string, readonly rv: string | undefined, private readonly object: SentObject) {
    this.uid = object.uid;
  }

  get owners(): readonly string[] {
    return this.object.owners;
  }
}

/** One collection a client process lists and watches: resource, namespace and selectors. */
interface Collection {
  lists: number;
  /** The processes that listed it (when known): another one's first list is its own start, not a relist. */
  readonly listers: Set<number>;
  watchesOpen: number;
  /** Since the last list: a 410 was sent on a watch of it, or a watch of it was closed, and why. */
  sent410: boolean;
  lastClose?: string;
}

/** One page of a list the client was sent. */
export interface ListPage {
  /** The collection listed: resource, namespace and selectors. */
  readonly collection: string;
  /** The continue token it was asked with (undefined for a list's first page), and the one it answered (none for its last). */
  readonly after?: string;
  readonly next?: string;
  readonly bytes: number;
  /** How many items it holds, when counted (an empty page is not held). */
  readonly count?: number;
  /** Reads its items. */
  readonly items: () => readonly SentObject[] | undefined;
}

/** A list page the client was sent, its items not read yet: `seq` places it among what else the client was sent. */
interface UnreadPage extends HeldPage {
  readonly seq: number;
  readonly collection: string;
  readonly items: () => readonly SentObject[] | undefined;
}

interface Streak {
  rounds: number;
  fields: Set<string>;
  reported: boolean;
}

export interface LoopFinding {
  client: string;
  key: string;
  resource: string;
  rounds: number;
  fields: string[];
}

const RECENT_MS = 10_000;
const RECENT_MAX = 2000;
const RECENT_SLACK_MS = 1000;
const OWN_RVS_MAX = 10_000;
/** The continue tokens of lists in progress that are remembered (a client that never asks for its next pages leaves them). */
const LIST_CHAINS_MAX = 1000;

/** "manager/v0.0.0 (linux/amd64) kubernetes/$Format/leader-election" → "manager/leader-election"; kubectl → "kubectl". */
export function clientName(userAgent: string | undefined): string {
  if (!userAgent) return 'unknown';
  const product = userAgent.split(' ')[0].split('/')[0] || 'unknown';
  const component = /kubernetes\/[^/\s]+\/([^\s]+)$/.exec(userAgent)?.[1];
  return component ? `${product}/${component}` : product;
}

export class ClientSession {
  requests = 0;
  failedRequests = 0;
  writes = 0;
  relists = 0;
  watchesOpen = 0;
  watchesStarted = 0;
  listsInFlight = 0;
  /** Watch events delivered to it (bookmarks and errors included), 410s among them, and the bytes it was answered. */
  events = 0;
  expired = 0;
  bytes = 0;
  lastWriteAt?: number;
  private readonly delivered = new Map<string, Map<string, SentObject>>();
  /** Counts what the client is sent while list pages of its resource are held unread: their order. */
  private seq = 0;
  /** Per resource: its list pages held unread, oldest first. */
  private readonly unread = new Map<string, UnreadPage[]>();
  /**
   * Per resource with pages held unread: each key sent since the first of them (a watch event, a get, a write's
   * answer, a delete) and when. A page older than that does not overwrite it when read.
   */
  private readonly sentSince = new Map<string, Map<string, number>>();
  /** collection + the continue token a page answered → when its list's first page was sent. */
  private readonly listStarts = new Map<string, number>();
  private recent: RecentEvent[] = [];
  private readonly collections = new Map<string, Collection>();
  private readonly streaks = new Map<string, Streak>();
  private readonly ownRvs = new Set<string>();
  /** resource + key → the resourceVersion this client's own latest stored write of it got. */
  private readonly lastOwnWrite = new Map<string, string>();
  readonly loops: LoopFinding[] = [];

  /**
   * `pid`: the process of its first connection, when known (its name then ends in [pid]). `heldPages`: the bound on
   * the list pages all the endpoint's clients hold unread.
   */
  constructor(readonly name: string, readonly userAgent: string, readonly pid?: number, private readonly heldPages = new HeldPages()) {}

  // ---- what it was sent ----

  /** An object the client was sent (a get, a list item, a watch event, a write's answer). */
  sent(resource: string, object: SentObject, type = 'ADDED'): void {
    if (object.key === undefined) return;
    this.sentSince.get(resource)?.set(object.key, ++this.seq);
    this.store(resource, object.key, object, type);
  }

  private store(resource: string, key: string, object: SentObject, type: string): void {
    let byKey = this.delivered.get(resource);
    if (!byKey) this.delivered.set(resource, (byKey = new Map()));
    if (type === 'DELETED') byKey.delete(key);
    else byKey.set(key, object.keep?.() ?? object);
  }

  /** A watch event delivered: kept as the object's newest version and among the recent events. */
  event(resource: string, e: ScannedEvent, now: number): RecentEvent | undefined {
    if (!e.object || e.key === undefined || e.type === 'BOOKMARK' || e.type === 'ERROR') return undefined;
    // The version the client holds already, sent on another of its watches (a client with many watches of one
    // collection): kept as it is, not copied again per watch.
    const held = e.type === 'DELETED' || e.table ? undefined : this.delivered.get(resource)?.get(e.key);
    const same = held !== undefined && e.rv !== undefined && held.rv === e.rv && held.uid === e.object.uid;
    // A Table row is not the object: it is no base to diff the client's writes against.
    if (!e.table && !same) this.sent(resource, e.object, e.type);
    // The version it holds, sent again: newer all the same than a page held unread.
    else if (same) this.sentSince.get(resource)?.set(e.key, ++this.seq);
    const object = same ? held : (e.object.keep?.() ?? e.object);
    const r = new DeliveredEvent(now, resource, e.type, e.key, e.rv, object);
    this.recent.push(r);
    // Trimmed now and then, not on every event: a busy watch keeps the oldest entry past RECENT_MS all the time, and
    // copying the list per event cost more than the event. likelyTriggers reads only the newest RECENT_MAX.
    if (this.recent.length > 2 * RECENT_MAX || now - this.recent[0].time > RECENT_MS + RECENT_SLACK_MS) this.recent = this.recent.filter((x) => now - x.time <= RECENT_MS).slice(-RECENT_MAX);
    return r;
  }

  /**
   * A list page the client was sent, held unread: its items are read when something asks what the client holds of
   * `resource` (newest), or when the endpoint holds too many bytes of unread pages. A whole list of a collection, from
   * its first page to its last, replaces the earlier pages of that collection still unread: it holds every object
   * they held that still exists, each in a version as new or newer, and a client that lists anew (client-go's
   * Replace) forgets the objects that are gone. Without that, a client relisting every minute would have the
   * endpoint hold every list it was ever sent.
   */
  listed(resource: string, p: ListPage): void {
    const seq = ++this.seq;
    const start = p.after === undefined ? seq : this.listStarts.get(`${p.collection} ${p.after}`);
    if (p.after !== undefined) this.listStarts.delete(`${p.collection} ${p.after}`);
    if (start !== undefined && p.next !== undefined) {
      if (this.listStarts.size >= LIST_CHAINS_MAX) this.listStarts.clear();
      this.listStarts.set(`${p.collection} ${p.next}`, start);
    }
    if (start !== undefined && p.next === undefined) this.dropUnread(resource, p.collection, start);
    if (p.count === 0) return;
    let pages = this.unread.get(resource);
    if (!pages) {
      this.unread.set(resource, (pages = []));
      this.sentSince.set(resource, new Map());
    }
    const page: UnreadPage = { seq, collection: p.collection, bytes: p.bytes, items: p.items, readNow: () => this.readHeld(resource, page) };
    pages.push(page);
    this.heldPages.hold(page);
  }

  /** Forgets the collection's unread pages sent before `before`. */
  private dropUnread(resource: string, collection: string, before: number): void {
    const pages = this.unread.get(resource);
    if (!pages) return;
    const kept = pages.filter((page) => {
      const replaced = page.collection === collection && page.seq < before;
      if (replaced) this.heldPages.release(page);
      return !replaced;
    });
    if (kept.length > 0) this.unread.set(resource, kept);
    else {
      this.unread.delete(resource);
      this.sentSince.delete(resource);
    }
  }

  /** Reads the resource's held pages in the order they were sent (up to `upTo`, when given): each item then is the client's version unless it was sent a version since. */
  private readHeld(resource: string, upTo?: UnreadPage): void {
    const pages = this.unread.get(resource);
    if (!pages) return;
    const since = this.sentSince.get(resource)!;
    while (pages.length > 0) {
      const page = pages.shift()!;
      this.heldPages.release(page);
      for (const it of page.items() ?? []) {
        if (it.key === undefined) continue;
        const later = since.get(it.key);
        if (later === undefined || later < page.seq) this.store(resource, it.key, it, 'ADDED');
      }
      if (page === upTo) break;
    }
    if (pages.length === 0) {
      this.unread.delete(resource);
      this.sentSince.delete(resource);
    }
  }

  /** The newest version of an object the client was sent, if any (its resource's held pages are read first). */
  newest(resource: string, key: string): SentObject | undefined {
    this.readHeld(resource);
    return this.delivered.get(resource)?.get(key);
  }

  /**
   * The events delivered in the window before a write that likely triggered it: those of the same key, of an object
   * it owns, or of its owner (inferred: the client does not say why it writes).
   */
  likelyTriggers(resource: string, key: string, object: Record<string, unknown> | undefined, now: number, windowMs: number): RecentEvent[] {
    const meta = (object?.metadata ?? {}) as { uid?: string; ownerReferences?: { uid?: string }[] };
    const uid = meta.uid ?? this.newest(resource, key)?.uid;
    const owners = new Set((meta.ownerReferences ?? []).map((o) => String(o.uid ?? '')));
    return this.recent
      .slice(-RECENT_MAX)
      .filter((e) => now - e.time <= windowMs && ((e.resource === resource && e.key === key) || (uid !== undefined && e.owners.includes(uid)) || (e.uid !== undefined && owners.has(e.uid))))
      .slice(-3)
      .map((e) => ({ time: e.time, resource: e.resource, type: e.type, key: e.key, rv: e.rv, uid: e.uid, owners: e.owners, own: e.rv !== undefined && this.ownRvs.has(`${e.resource} ${e.key} ${e.rv}`) }));
  }

  // ---- lists and watches ----

  private collection(id: string): Collection {
    let c = this.collections.get(id);
    if (!c) this.collections.set(id, (c = { lists: 0, listers: new Set(), watchesOpen: 0, sent410: false }));
    return c;
  }

  /**
   * A list begins (its first page, or a watch that sends initial events); answers the relist's reason when it is one.
   * Judged per process (`pid`, when known) and collection: after a 410 any list of the client's is the relist that
   * answers it (a script's next kubectl call included); otherwise a list is a relist only when the same process listed
   * before: a script's next `kubectl get` is that process's start, not a bug.
   */
  listStarted(collection: string, pid?: number): string | undefined {
    const c = this.collection(collection);
    c.lists++;
    const newProcess = pid !== undefined && !c.listers.has(pid);
    if (pid !== undefined) c.listers.add(pid);
    if (c.lists === 1) return undefined;
    if (newProcess && !c.sent410) return undefined;
    this.relists++;
    const why = c.sent410
      ? 'it was sent 410 Gone (its resourceVersion expired): relisting is what a reflector must do'
      : c.lastClose && c.lastClose !== 'client'
        ? `its watch was closed (${c.lastClose}): a reflector would re-watch from its last resourceVersion instead`
        : 'nothing the server did: the client listed again on its own (a bug, or a periodic relist)';
    c.sent410 = false;
    c.lastClose = undefined;
    return why;
  }

  watchOpened(collection: string): void {
    const c = this.collection(collection);
    c.watchesOpen++;
    this.watchesOpen++;
    this.watchesStarted++;
  }

  watchClosed(collection: string, reason: string): void {
    const c = this.collection(collection);
    c.watchesOpen = Math.max(0, c.watchesOpen - 1);
    this.watchesOpen = Math.max(0, this.watchesOpen - 1);
    if (reason === '410') { c.sent410 = true; this.expired++; }
    c.lastClose = reason;
  }

  /** Kinds listed or watched, and whether each has a watch open. */
  collectionsSeen(): { id: string; watched: boolean; lists: number }[] {
    return [...this.collections.entries()].map(([id, c]) => ({ id, watched: c.watchesOpen > 0, lists: c.lists }));
  }

  // ---- writes ----

  /** A write was answered (whatever the answer). */
  wrote(now: number): void {
    this.writes++;
    this.lastWriteAt = now;
  }

  /** A resourceVersion the client's stored write got: its watch event is the write's echo, not an outside change. */
  ownWrite(resource: string, key: string, rv: string | undefined): void {
    if (rv === undefined) return;
    if (this.ownRvs.size >= OWN_RVS_MAX) this.ownRvs.clear();
    this.ownRvs.add(`${resource} ${key} ${rv}`);
    if (this.lastOwnWrite.size >= OWN_RVS_MAX) this.lastOwnWrite.clear();
    this.lastOwnWrite.set(`${resource} ${key}`, rv);
  }

  /** The resourceVersion this client's own latest stored write of the key got, if any. */
  ownWriteRv(resource: string, key: string): string | undefined {
    return this.lastOwnWrite.get(`${resource} ${key}`);
  }

  /**
   * A write that changed `fields`: a key the client writes again and again, each time re-triggered (at least in part)
   * by the echo of its own previous write, whatever else was merged in, is looping once the fields it changes on
   * every round pass `threshold` rounds. Answers the finding the first time.
   */
  observeWrite(resource: string, key: string, fields: string[], triggers: readonly RecentEvent[], threshold: number): LoopFinding | undefined {
    const id = `${resource} ${key}`;
    if (fields.length === 0) { this.streaks.delete(id); return undefined; }
    const selfTriggered = triggers.some((t) => t.own && t.resource === resource && t.key === key);
    const s = this.streaks.get(id);
    if (!s || !selfTriggered) { this.streaks.set(id, { rounds: 0, fields: new Set(fields), reported: false }); return undefined; }
    s.rounds++;
    if (s.rounds === 1) s.fields = new Set(fields);
    else for (const f of s.fields) if (!fields.includes(f)) s.fields.delete(f);
    if (s.fields.size === 0) { this.streaks.set(id, { rounds: 0, fields: new Set(fields), reported: false }); return undefined; }
    if (s.rounds > threshold && !s.reported) {
      s.reported = true;
      const finding = { client: this.name, key, resource, rounds: s.rounds, fields: [...s.fields] };
      this.loops.push(finding);
      return finding;
    }
    return undefined;
  }
}

export class ClientRegistry {
  /** `heldPages`: the bound on the list pages the clients hold unread, all together. */
  constructor(private readonly heldPages = new HeldPages()) {}

  private readonly byKey = new Map<string, ClientSession>();
  private readonly sessions: ClientSession[] = [];
  /** Each process seen, and the client it belongs to: its later connections join it whatever their User-Agent. */
  private readonly byPid = new Map<number, { program: string; session: ClientSession }>();

  /** The client of a connection: its program's when the process behind it is known, else its User-Agent's. */
  for(userAgent: string | undefined, identity?: ClientIdentity): ClientSession {
    const ua = userAgent ?? '';
    if (!identity) return this.session(`agent ${ua}`, () => new ClientSession(clientName(userAgent), ua, undefined, this.heldPages));
    const key = identity.root ? `root ${identity.group}` : `process ${identity.group} ${clientName(userAgent)}`;
    const known = this.byPid.get(identity.pid);
    // The program is compared as well: a pid reused by another program is another process.
    if (known?.program === identity.program) {
      // Its other User-Agents name the same client for the program's next runs (kubectl's first request says
      // kubectl-dispatcher, its later ones kubectl).
      if (!this.byKey.has(key)) this.byKey.set(key, known.session);
      return known.session;
    }
    const session = this.session(key, () => new ClientSession(`${identity.program}[${identity.pid}]`, ua, identity.pid, this.heldPages));
    this.byPid.set(identity.pid, { program: identity.program, session });
    return session;
  }

  private session(key: string, create: () => ClientSession): ClientSession {
    let s = this.byKey.get(key);
    if (!s) {
      this.byKey.set(key, (s = create()));
      this.sessions.push(s);
    }
    return s;
  }

  all(): ClientSession[] {
    return [...this.sessions];
  }
}
