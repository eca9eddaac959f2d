// The endpoint's trace records (stage `endpoint`), each naming its client: http (every request), list (each page
// served), watch (start, each event delivered, close and why), write (verb, mode, answer, the diff against the newest
// version the client was sent, and the events that likely triggered it), question (a TokenRequest or built-in review,
// answered by the target in every mode), and the derived ones: relist, stale-write, loop, stall, fault. It also
// keeps, traced or not, what the --once report needs: every key written and how.
import { diffObjects } from '../informer/object-diff.js';
import type { Tracer } from '../informer/trace.js';
import type { ClientSession, RecentEvent } from './client-session.js';
import { objectKey, queryTrue, resourceName, type RequestInfo } from './request-info.js';
import { decodeBody } from './body-decode.js';
import { isScannedType, listFacts, listHeadFacts, readBody, type ListFacts, type ScannedEvent } from './body-scan.js';
import type { CapturedResponse } from './response-capture.js';
import { decodedObject, type SentObject } from './sent-object.js';
import { scaleView } from './scale-view.js';

/** What one key went through: the --once report's row. */
export interface WrittenKey {
  client: string;
  resource: string;
  key: string;
  writes: number;
  /** Writes that would change (intercept, server-dry-run) or changed (overlay, apply) something. */
  changing: number;
  fields: Set<string>;
  lastCode: number;
  /** The reason of the Status the last write was refused with (Conflict, Invalid, …). */
  lastReason?: string;
  lastAt: number;
  /** The last write was refused by an injected fault. */
  lastInjected: boolean;
  /** Writes the server (or a fault) refused: they changed nothing, but they are no no-ops. */
  failedWrites: number;
  loop?: { rounds: number; fields: string[] };
  /** Written again and again at a steady pace, each time with no event to trigger it: a lease renewal, a heartbeat. */
  periodic?: { everyMs: number };
}

/** Two clients alternating on one field of one object, each undoing the other. */
export interface FightFinding {
  resource: string;
  key: string;
  field: string;
  clients: string[];
  switches: number;
}

/** Writes of one key with no event behind them, this many in a row at a steady pace, are periodic. */
const PERIODIC_WRITES = 4;
/** The shortest period taken for a heartbeat: a loop re-triggered by its own echo comes back faster than this. */
const PERIODIC_MIN_MS = 1000;
/** How far the intervals of a periodic key may differ (longest / shortest). */
const PERIODIC_SPREAD = 1.5;
/** Changes of hands on one field that make a fight (A, B, A, B). */
const FIGHT_SWITCHES = 3;

/** Query parameters that say what a request asked for (the rest is noise in a trace line). */
const TELLING_QUERY = ['resourceVersion', 'resourceVersionMatch', 'limit', 'continue', 'watch', 'allowWatchBookmarks', 'sendInitialEvents', 'labelSelector', 'fieldSelector', 'timeoutSeconds', 'dryRun', 'fieldManager', 'propagationPolicy'];

/** How long before a write the events it likely reacted to are looked for. */
const TRIGGER_WINDOW_MS = 5000;

export class WireTrace {
  readonly written = new Map<string, WrittenKey>();
  readonly fights: FightFinding[] = [];
  /** The times of each key's latest writes that no outside event triggered (periodic detection). */
  private readonly untriggered = new Map<string, number[]>();
  /** Per resource, key and field: who changed it last, and how often it changed hands. */
  private readonly fieldHands = new Map<string, { last: string; clients: Set<string>; switches: number }>();
  private readonly fought = new Set<string>();
  /** When each client's latest write of a key was sent (its echo can come back before its answer). */
  private readonly lastSent = new Map<string, number>();
  /** client + resource + key → the client's own write a pending write is older than (a stale read), for its write record. */
  private readonly staleReads = new Map<string, string>();

  constructor(private readonly tracer: Tracer) {}

  resourceOf(info: RequestInfo): string {
    return info.isResource ? resourceName(info) : info.path;
  }

  /** One collection a client reads: resource, namespace, selectors (its lists and watches pair up by it). */
  collectionOf(info: RequestInfo): string {
    return `${this.resourceOf(info)} ${info.namespace ?? '*'} ${info.query.get('labelSelector') ?? ''} ${info.query.get('fieldSelector') ?? ''}`;
  }

  /**
   * `o.sent`: the query as it went to the target when kwatch changed it (dryRun=All), else the client's.
   * `o.refusal`: kwatch answered in the target's place (its Status): the record says `refused` and why.
   * `o.pid`: the process behind the connection, when known.
   */
  http(s: { name: string }, info: RequestInfo, method: string, c: CapturedResponse, ms: number, o: { sent?: URLSearchParams; refusal?: { reason: string; message: string }; pid?: number } = {}): void {
    if (!this.tracer.shouldEmit('endpoint', 'http')) return;
    const refusal = o.refusal;
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'http', key: info.name !== undefined ? objectKey(info.namespace, info.name) : undefined,
      client: s.name, ...(o.pid !== undefined ? { pid: o.pid } : {}), method, path: info.path, ...tellingQuery(o.sent ?? info.query), status: c.status, ms, ...(info.verb === 'watch' ? {} : { bytes: c.bytes }),
      ...(c.aborted ? { aborted: true } : {}),
      ...(refusal ? { refused: refusal.reason, error: refusal.message } : {}),
    });
  }

  /** A request kwatch answered itself before it reached the target or the fork (401, 403, 406, 413, 415, …). */
  refused(client: string, info: RequestInfo, method: string, status: number, reason: string, message: string, ms: number): void {
    // Emitted whatever the stage selection: a refusal is what the run's verdict turns on.
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'http', key: info.name !== undefined ? objectKey(info.namespace, info.name) : undefined,
      client, method, path: info.path, ...tellingQuery(info.query), status, ms, refused: reason, error: message,
    });
  }

  /**
   * A list page or a get answered: what the client now holds, and for lists a `list` record. Answers a list page's
   * resourceVersion.
   */
  read(s: ClientSession, info: RequestInfo, c: CapturedResponse): string | undefined {
    if (c.status !== 200) return undefined;
    const resource = this.resourceOf(info);
    if (info.verb === 'get') {
      const body = readBody(c.chunks, c.contentType);
      if (body?.object && body.kind !== 'Table' && body.kind !== 'Status') s.sent(this.sentAs(info), body.object);
      return undefined;
    }
    const page = this.listPage(s, info, c);
    if (!this.tracer.shouldEmit('endpoint', 'list')) return page?.resourceVersion;
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'list', key: info.namespace, rv: page?.resourceVersion, client: s.name, resource,
      items: page?.itemCount ?? page?.rows,
      ...(info.query.get('continue') ? { page: 'next' } : {}),
      ...(page?.continue ? { continue: true } : {}),
      ...(page?.remainingItemCount !== undefined ? { remaining: page.remainingItemCount } : {}),
      ...(page === undefined ? { bytes: c.bytes, traced: c.body === undefined ? 'size only (too large to decode)' : 'size only (not JSON)' } : {}),
    });
    return page?.resourceVersion;
  }

  /**
   * A list page's facts, and its items given to the client: a JSON page's counted now and held unread by the session
   * (read if a write or a check asks: client-session.ts), a decoded one's (protobuf, CBOR) at once.
   */
  private listPage(s: ClientSession, info: RequestInfo, c: CapturedResponse): ListFacts | undefined {
    const resource = this.resourceOf(info);
    const { chunks, contentType } = c;
    if (isScannedType(contentType)) {
      // Counted only when a `list` record will say how many (or when the answer broke off: only a whole body is a list).
      const facts = (!c.aborted && !this.tracer.wants('endpoint', 'list') ? listHeadFacts(chunks) : undefined) ?? listFacts(chunks);
      if (chunks && (facts?.itemCount !== undefined || facts?.uncounted) && facts.kind !== 'Table') {
        s.listed(resource, {
          collection: this.collectionOf(info), after: info.query.get('continue') || undefined, next: facts.continue || undefined,
          bytes: c.bytes, count: facts.itemCount, items: () => readBody(chunks, contentType)?.items,
        });
      }
      return facts;
    }
    const body = readBody(chunks, contentType);
    const items = body?.items;
    if (items && body.kind !== 'Table') for (const it of items) s.sent(resource, it);
    return body && { kind: body.kind, resourceVersion: body.resourceVersion, continue: body.continue, remainingItemCount: body.remainingItemCount, itemCount: items?.length, rows: body.rows };
  }

  /**
   * The newest version of the object a write names that the client had been sent when it wrote (the diff's base).
   * For a write to /scale: the Scale the client read, or the parent it was sent if that is newer (made a Scale once
   * the answer is in: `write`).
   */
  baseOf(s: ClientSession, info: RequestInfo): Record<string, unknown> | undefined {
    if (info.name === undefined) return undefined;
    const key = objectKey(info.namespace, info.name);
    const parent = s.newest(this.resourceOf(info), key);
    if (info.subresource !== 'scale') return parent?.object();
    return newer(s.newest(this.sentAs(info), key), parent)?.object();
  }

  /**
   * Under what the objects a request returns are kept for the client: a Scale (…/scale) apart from its parent, so
   * that neither is diffed against the other; /status and the rest return the parent itself.
   */
  private sentAs(info: RequestInfo): string {
    return info.subresource === 'scale' ? `${this.resourceOf(info)}/scale` : this.resourceOf(info);
  }

  /** A TokenRequest or built-in review answered: the target answers these in every write mode, so they are shown. */
  question(s: ClientSession, info: RequestInfo, c: CapturedResponse, mode: string): void {
    if (!this.tracer.shouldEmit('endpoint', 'question')) return;
    // Only the verdict: a TokenRequest's answer carries a token, which is never traced.
    const status = (decodeBody(c.body, c.contentType)?.status ?? {}) as { allowed?: unknown; authenticated?: unknown };
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'question', key: info.name !== undefined ? objectKey(info.namespace, info.name) : info.namespace,
      client: s.name, verb: info.verb, resource: this.resourceOf(info), ...(info.subresource ? { subresource: info.subresource } : {}), mode, code: c.status,
      ...(typeof status.allowed === 'boolean' ? { allowed: status.allowed } : {}),
      ...(typeof status.authenticated === 'boolean' ? { authenticated: status.authenticated } : {}),
      note: info.subresource === 'token' ? 'a ServiceAccount token minted by the target, in every --writes mode' : 'answered by the target, in every --writes mode',
    });
  }

  write(s: ClientSession, info: RequestInfo, c: CapturedResponse, o: { mode: string; body: Buffer | undefined; contentType: string | undefined; base: Record<string, unknown> | undefined; loopThreshold: number; refused?: string; sentAt?: number }): void {
    const now = Date.now();
    const resource = this.resourceOf(info);
    const answer = decodeBody(c.body, c.contentType) as Record<string, unknown> | undefined;
    const isStatus = answer?.kind === 'Status';
    const sentObject = decodeBody(o.body, o.contentType);
    const answerMeta = (!isStatus ? (answer?.metadata as { name?: string; namespace?: string; resourceVersion?: string } | undefined) : undefined) ?? {};
    const sentMeta = (sentObject?.metadata ?? {}) as { name?: string; namespace?: string; generateName?: string };
    const name = info.name ?? answerMeta.name ?? sentMeta.name ?? (sentMeta.generateName ? `${sentMeta.generateName}*` : '');
    const key = info.verb === 'deletecollection' ? (info.namespace ?? '*') : objectKey(info.namespace ?? answerMeta.namespace ?? sentMeta.namespace, name);
    const ok = c.status >= 200 && c.status < 300;
    const injected = c.status >= 400 && answer !== undefined && String((answer as { message?: string }).message ?? '').includes('injected by kwatch');
    const after = !isStatus && answer?.metadata ? answer : undefined;
    const old = comparableBase(o.base, after, info);
    const changed = !ok ? [] : info.verb === 'create' ? ['(created)'] : info.verb === 'delete' || info.verb === 'deletecollection' ? ['(deleted)'] : old && after ? diffObjects(old, after).map((d) => d.path) : [];
    // The write's own echo may have arrived already: it is no trigger of the write.
    // Only events since this client's previous write of the key: what came before that one triggered that one.
    const previousAt = this.lastSent.get(`${s.name} ${resource} ${key}`) ?? 0;
    this.lastSent.set(`${s.name} ${resource} ${key}`, o.sentAt ?? now);
    const triggers = s.likelyTriggers(resource, key, after ?? sentObject, now, TRIGGER_WINDOW_MS).filter((t) => t.time > previousAt && !(t.resource === resource && t.key === key && t.rv !== undefined && t.rv === answerMeta.resourceVersion));
    // Only writes that are stored echo back on the client's watches.
    const stored = ok && (o.mode === 'overlay' || o.mode === 'apply');
    s.wrote(now);
    if (stored) s.ownWrite(resource, key, answerMeta.resourceVersion);
    if (ok && after) s.sent(this.sentAs(info), decodedObject(after), info.verb === 'delete' ? 'DELETED' : 'MODIFIED');

    const id = `${s.name} ${resource} ${key}`;
    const staleRead = this.staleReads.get(id);
    if (staleRead !== undefined) this.staleReads.delete(id);
    let w = this.written.get(id);
    if (!w) this.written.set(id, (w = { client: s.name, resource, key, writes: 0, changing: 0, fields: new Set(), lastCode: 0, lastAt: 0, lastInjected: false, failedWrites: 0 }));
    w.writes++;
    if (!ok) w.failedWrites++;
    if (changed.length) w.changing++;
    for (const f of changed) w.fields.add(f);
    w.lastCode = c.status;
    w.lastReason = !ok && isStatus && typeof answer.reason === 'string' && answer.reason ? answer.reason : undefined;
    w.lastAt = now;
    w.lastInjected = injected;

    if (this.tracer.shouldEmit('endpoint', 'write')) {
      this.tracer.emit({
        time: now, stage: 'endpoint', op: 'write', key, rv: answerMeta.resourceVersion, client: s.name, verb: info.verb, resource, mode: o.mode, code: c.status,
        ...(info.subresource ? { subresource: info.subresource } : {}),
        ...(o.refused ? { refused: o.refused } : {}),
        ...(staleRead !== undefined ? { staleRead } : {}),
        ...(info.verb === 'create' && after ? createdEssentials(after) : {}),
        ...(!ok && isStatus ? { error: String((answer as { message?: string }).message ?? ''), ...(typeof answer.reason === 'string' && answer.reason ? { reason: answer.reason } : {}) } : {}),
        ...(o.mode === 'server-dry-run' ? { answer: dryRunAnswer(info.verb, c.status, isStatus ? answer : undefined, changed, old !== undefined) } : {}),
        ...(triggers.length ? { after: triggers.map(describeTrigger), trigger: 'inferred' } : {}),
        ...(old ? { old } : {}), ...(after ? { new: after } : {}),
      });
    }
    if (!ok) return;
    this.observeFight(s.name, resource, key, changed, now);
    if (this.observePeriodic(id, w, triggers, now)) {
      // A heartbeat renews its own key after the echo of its last renewal: that is its pace, not a loop.
      s.observeWrite(resource, key, [], [], o.loopThreshold);
      return;
    }
    const loop = s.observeWrite(resource, key, changed, triggers, o.loopThreshold);
    if (loop) {
      w.loop = { rounds: loop.rounds, fields: loop.fields };
      this.tracer.emit({ time: now, stage: 'endpoint', op: 'loop', key, client: s.name, resource, rounds: loop.rounds, fields: loop.fields, note: `${s.name} rewrote ${key} ${loop.rounds} times in a row, each time after the echo of its own write` });
    }
  }

  /** Whether the key is now written periodically (a steady pace, no outside event behind its writes); said once. */
  private observePeriodic(id: string, w: WrittenKey, triggers: readonly RecentEvent[], now: number): boolean {
    if (triggers.some((t) => !t.own)) {
      this.untriggered.delete(id);
      w.periodic = undefined;
      return false;
    }
    const times = this.untriggered.get(id) ?? [];
    times.push(now);
    if (times.length > PERIODIC_WRITES) times.shift();
    this.untriggered.set(id, times);
    if (w.periodic) return true;
    if (times.length < PERIODIC_WRITES) return false;
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    const shortest = Math.min(...gaps);
    if (shortest < PERIODIC_MIN_MS || Math.max(...gaps) > shortest * PERIODIC_SPREAD) return false;
    const everyMs = Math.round(gaps.reduce((a, b) => a + b, 0) / gaps.length);
    w.periodic = { everyMs };
    this.tracer.emit({ time: now, stage: 'endpoint', op: 'periodic', key: w.key, client: w.client, resource: w.resource, everyMs, note: `${w.client} writes ${w.key} every ~${Math.round(everyMs / 100) / 10} s with no event triggering it (a lease renewal or a heartbeat): neither a loop nor a write to wait for` });
    return true;
  }

  /** A field that keeps changing hands between clients (A, B, A, B): a `fight` record, once per object. */
  private observeFight(client: string, resource: string, key: string, changed: readonly string[], now: number): void {
    for (const field of changed) {
      if (field.startsWith('(')) continue;
      const id = `${resource} ${key} ${field}`;
      const hands = this.fieldHands.get(id);
      if (!hands) { this.fieldHands.set(id, { last: client, clients: new Set([client]), switches: 0 }); continue; }
      if (hands.last === client) continue;
      hands.last = client;
      hands.clients.add(client);
      hands.switches++;
      if (hands.switches < FIGHT_SWITCHES || this.fought.has(`${resource} ${key}`)) continue;
      this.fought.add(`${resource} ${key}`);
      const f: FightFinding = { resource, key, field, clients: [...hands.clients], switches: hands.switches };
      this.fights.push(f);
      this.tracer.emit({ time: now, stage: 'endpoint', op: 'fight', key, client, resource, field, clients: f.clients, switches: f.switches, note: `${f.clients.join(' and ')} keep rewriting ${field} of ${key}, each undoing the other (${f.switches} changes of hands)` });
    }
  }

  /** An update or patch carrying a resourceVersion older than the newest this client was sent: a conflict follows. */
  staleWrite(s: ClientSession, info: RequestInfo, body: Buffer | undefined, contentType: string | undefined): void {
    if ((info.verb !== 'update' && info.verb !== 'patch') || info.name === undefined) return;
    const sentRv = (decodeBody(body, contentType)?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
    if (typeof sentRv !== 'string' || sentRv === '') return;
    const resource = this.resourceOf(info);
    const key = objectKey(info.namespace, info.name);
    // KEP-5647 / controller-runtime's read-your-own-writes: a base older than the client's own previous write of the key
    // means it read a cache that had not yet seen that write. The server answers 409 (the write record says staleRead=).
    const own = s.ownWriteRv(resource, key);
    if (own !== undefined && own !== sentRv && isOlder(sentRv, own)) {
      this.staleReads.set(`${s.name} ${resource} ${key}`, own);
      this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'stale-read', key, rv: sentRv, client: s.name, resource, ownWrite: own, note: `${s.name} writes ${key} from resourceVersion ${sentRv}, older than its own earlier write of it (resourceVersion ${own}): it read a cache that had not yet seen its own write; a 409 Conflict follows` });
    }
    const newest = s.newest(resource, key);
    if (newest?.rv === undefined || newest.rv === sentRv || !isOlder(sentRv, newest.rv)) return;
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'stale-write', key, rv: sentRv, client: s.name, resource, newest: newest.rv, note: `${s.name} writes from resourceVersion ${sentRv} though it was sent ${newest.rv}: a 409 Conflict follows` });
  }

  /** A watch from a resourceVersion the client was told is expired: answered 410 again. */
  rewatchExpired(s: ClientSession, info: RequestInfo, rv: string, expiredAt: string): void {
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'rewatch-expired', key: info.namespace, rv, client: s.name, resource: this.resourceOf(info), expiredAt, note: `${s.name} watches again from resourceVersion ${rv}, though it was sent 410 Gone at ${expiredAt}: it gets 410 again; a reflector lists anew instead` });
  }

  relist(s: ClientSession, info: RequestInfo, why: string): void {
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'relist', key: info.namespace, client: s.name, resource: this.resourceOf(info), reason: why });
  }

  watchStart(s: ClientSession, info: RequestInfo): void {
    if (!this.tracer.shouldEmit('endpoint', 'watch')) return;
    const q = info.query;
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'watch', key: info.namespace, rv: q.get('resourceVersion') ?? undefined, client: s.name, resource: this.resourceOf(info), event: 'start',
      ...(queryTrue(q.get('allowWatchBookmarks')) ? { bookmarks: true } : {}),
      ...(queryTrue(q.get('sendInitialEvents')) ? { sendInitialEvents: true } : {}),
      ...(q.get('labelSelector') ? { labelSelector: q.get('labelSelector') } : {}),
      ...(q.get('fieldSelector') ? { fieldSelector: q.get('fieldSelector') } : {}),
    });
  }

  watchEvent(s: ClientSession, info: RequestInfo, e: ScannedEvent): void {
    const resource = this.resourceOf(info);
    s.event(resource, e, Date.now());
    if (!this.tracer.shouldEmit('endpoint', 'watch')) return;
    const status = e.status;
    this.tracer.emit({
      // `event` on every endpoint watch record (start, the event type, close); `type` as on the watch stage's records.
      time: Date.now(), stage: 'endpoint', op: 'watch', key: e.type === 'BOOKMARK' ? undefined : e.key, rv: e.rv, type: e.type as never, client: s.name, resource, event: e.type,
      ...(status ? { code: status.code, error: status.message } : {}),
    });
  }

  watchClose(s: ClientSession, info: RequestInfo, reason: string): void {
    if (!this.tracer.shouldEmit('endpoint', 'watch')) return;
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'watch', key: info.namespace, client: s.name, resource: this.resourceOf(info), event: 'close', reason });
  }

  stall(s: ClientSession, resource: string, idleMs: number): void {
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'stall', client: s.name, resource, idleMs, note: `${s.name}'s watch of ${resource} received no event and no bookmark for ${Math.round(idleMs / 1000)}s` });
  }

  fault(s: ClientSession, text: string, info: RequestInfo, e?: ScannedEvent): void {
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'fault', key: e?.key ?? (info.name !== undefined ? objectKey(info.namespace, info.name) : undefined), rv: e?.rv, client: s.name, resource: this.resourceOf(info), fault: text });
  }
}

/**
 * What the target said of a dry run, in words: what the write would change (the record's diff has the values), or
 * the Status it refused it with.
 */
function dryRunAnswer(verb: RequestInfo['verb'], code: number, status: Record<string, unknown> | undefined, changed: readonly string[], compared: boolean): string {
  if (code < 200 || code >= 300) {
    const reason = typeof status?.reason === 'string' && status.reason ? ` ${status.reason}` : '';
    const message = typeof status?.message === 'string' && status.message ? `: ${status.message}` : '';
    return `refused: ${code}${reason}${message}`;
  }
  if (verb === 'create') return 'the object the server would store';
  if (verb === 'delete' || verb === 'deletecollection') return 'would delete it';
  if (!compared) return 'the object the server would store (the target\'s current one could not be read to compare)';
  return changed.length ? `would change ${changed.length} ${changed.length === 1 ? 'field' : 'fields'}: ${changed.join(', ')}` : 'would change nothing';
}

/** Of two versions of one object, the one with the higher resourceVersion (the first when they cannot be compared). */
function newer(a: SentObject | undefined, b: SentObject | undefined): SentObject | undefined {
  if (!a || !b) return a ?? b;
  return a.rv !== undefined && b.rv !== undefined && isOlder(a.rv, b.rv) ? b : a;
}

/**
 * The base as the answer's kind: a parent made its Scale for a write to /scale, and the kind and apiVersion that
 * kube leaves off the items of a built-in kind's list (they are the list's, not fields the write set) taken from the
 * answer.
 */
function comparableBase(base: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined, info: RequestInfo): Record<string, unknown> | undefined {
  if (!base) return undefined;
  if (info.subresource === 'scale' && base.kind !== 'Scale') return scaleView(base, after);
  if (!after || (base.kind !== undefined && base.apiVersion !== undefined)) return base;
  return { ...(base.kind === undefined && after.kind !== undefined ? { kind: after.kind } : {}), ...(base.apiVersion === undefined && after.apiVersion !== undefined ? { apiVersion: after.apiVersion } : {}), ...base };
}

function tellingQuery(given: URLSearchParams): { query?: string } {
  const q = new URLSearchParams();
  for (const k of TELLING_QUERY) for (const v of given.getAll(k)) q.append(k, v);
  const query = q.toString();
  return query ? { query: decodeURIComponent(query) } : {};
}

/** What a create made, in a line: its kind, controller owner and labels (the object itself is in -o json with --diff all). */
function createdEssentials(o: Record<string, unknown>): Record<string, unknown> {
  const meta = (o.metadata ?? {}) as { labels?: Record<string, string>; ownerReferences?: { kind?: string; name?: string; controller?: boolean }[] };
  const owner = meta.ownerReferences?.find((r) => r.controller) ?? meta.ownerReferences?.[0];
  const labels = Object.entries(meta.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  const fields = Object.keys(o).filter((k) => k !== 'metadata' && k !== 'apiVersion' && k !== 'kind');
  return {
    ...(typeof o.kind === 'string' ? { kind: o.kind } : {}),
    ...(owner ? { owner: `${owner.kind ?? '?'}/${owner.name ?? '?'}` } : {}),
    ...(labels.length ? { labels } : {}),
    ...(fields.length ? { fields } : {}),
  };
}

function describeTrigger(t: RecentEvent): string {
  return `${t.type} ${t.resource} ${t.key}${t.rv ? `@${t.rv}` : ''}${t.own ? ' (own write)' : ''}`;
}

/** kube's resourceVersions are opaque, but etcd's are integers: compare as such when both are. */
function isOlder(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) ? BigInt(a) < BigInt(b) : false;
}
