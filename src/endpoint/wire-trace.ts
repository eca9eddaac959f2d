// The endpoint's trace records (stage `endpoint`), each naming its client: http (every request), list (each page
// served), watch (start, each event delivered, close and why), write (verb, mode, answer, the diff against the newest
// version the client was sent, and the events that likely triggered it), and the derived ones: relist, stale-write,
// loop, stall, fault. It also keeps, traced or not, what the --once report needs: every key written and how.
import { diffObjects } from '../informer/object-diff.js';
import type { Tracer } from '../informer/trace.js';
import type { ClientSession, RecentEvent } from './client-session.js';
import { objectKey, queryTrue, resourceName, type RequestInfo } from './request-info.js';
import { decodeBody } from './body-decode.js';
import { readBody, type ScannedEvent } from './body-scan.js';
import type { CapturedResponse } from './response-capture.js';
import { decodedObject } from './sent-object.js';

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
  lastAt: number;
  /** The last write was refused by an injected fault. */
  lastInjected: boolean;
  loop?: { rounds: number; fields: string[] };
}

/** Query parameters that say what a request asked for (the rest is noise in a trace line). */
const TELLING_QUERY = ['resourceVersion', 'resourceVersionMatch', 'limit', 'continue', 'watch', 'allowWatchBookmarks', 'sendInitialEvents', 'labelSelector', 'fieldSelector', 'timeoutSeconds', 'dryRun', 'fieldManager', 'propagationPolicy'];

/** How long before a write the events it likely reacted to are looked for. */
const TRIGGER_WINDOW_MS = 5000;

export class WireTrace {
  readonly written = new Map<string, WrittenKey>();

  constructor(private readonly tracer: Tracer) {}

  resourceOf(info: RequestInfo): string {
    return info.isResource ? resourceName(info) : info.path;
  }

  /** One collection a client reads: resource, namespace, selectors (its lists and watches pair up by it). */
  collectionOf(info: RequestInfo): string {
    return `${this.resourceOf(info)} ${info.namespace ?? '*'} ${info.query.get('labelSelector') ?? ''} ${info.query.get('fieldSelector') ?? ''}`;
  }

  /** `refusal`: kwatch answered in the target's place (its Status): the record says `refused` and why. */
  http(s: { name: string }, info: RequestInfo, method: string, c: CapturedResponse, ms: number, refusal?: { reason: string; message: string }): void {
    if (!this.tracer.shouldEmit('endpoint', 'http')) return;
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'http', key: info.name !== undefined ? objectKey(info.namespace, info.name) : undefined,
      client: s.name, method, path: info.path, ...tellingQuery(info), status: c.status, ms, ...(info.verb === 'watch' ? {} : { bytes: c.bytes }),
      ...(c.aborted ? { aborted: true } : {}),
      ...(refusal ? { refused: refusal.reason, error: refusal.message } : {}),
    });
  }

  /** A request kwatch answered itself before it reached the target or the fork (401, 403, 406, 413, 415, …). */
  refused(client: string, info: RequestInfo, method: string, status: number, reason: string, message: string, ms: number): void {
    // Emitted whatever the stage selection: a refusal is what the run's verdict turns on.
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'http', key: info.name !== undefined ? objectKey(info.namespace, info.name) : undefined,
      client, method, path: info.path, ...tellingQuery(info), status, ms, refused: reason, error: message,
    });
  }

  /** A list page or a get answered: what the client now holds, and for lists a `list` record. */
  read(s: ClientSession, info: RequestInfo, c: CapturedResponse): void {
    if (c.status !== 200) return;
    const resource = this.resourceOf(info);
    // Scanned, not parsed: a list body runs to hundreds of MB, and only the items' identities are needed now.
    const body = readBody(c.chunks, c.contentType);
    if (info.verb === 'get') {
      if (body?.object && body.kind !== 'Table' && body.kind !== 'Status') s.sent(resource, body.object);
      return;
    }
    const items = body?.items;
    if (items && body?.kind !== 'Table') for (const it of items) s.sent(resource, it);
    if (!this.tracer.shouldEmit('endpoint', 'list')) return;
    this.tracer.emit({
      time: Date.now(), stage: 'endpoint', op: 'list', key: info.namespace, rv: body?.resourceVersion, client: s.name, resource,
      items: items?.length ?? body?.rows,
      ...(info.query.get('continue') ? { page: 'next' } : {}),
      ...(body?.continue ? { continue: true } : {}),
      ...(body?.remainingItemCount !== undefined ? { remaining: body.remainingItemCount } : {}),
      ...(body === undefined ? { bytes: c.bytes, traced: c.body === undefined ? 'size only (too large to decode)' : 'size only (not JSON)' } : {}),
    });
  }

  /** The newest version of the object a write names that the client had been sent when it wrote (the diff's base). */
  baseOf(s: ClientSession, info: RequestInfo): Record<string, unknown> | undefined {
    return info.name !== undefined ? s.newest(this.resourceOf(info), objectKey(info.namespace, info.name))?.object() : undefined;
  }

  write(s: ClientSession, info: RequestInfo, c: CapturedResponse, o: { mode: string; body: Buffer | undefined; contentType: string | undefined; base: Record<string, unknown> | undefined; loopThreshold: number }): void {
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
    const old = o.base;
    const after = !isStatus && answer?.metadata ? answer : undefined;
    const changed = !ok ? [] : info.verb === 'create' ? ['(created)'] : info.verb === 'delete' || info.verb === 'deletecollection' ? ['(deleted)'] : old && after ? diffObjects(old, after).map((d) => d.path) : [];
    // The write's own echo may have arrived already: it is no trigger of the write.
    const triggers = s.likelyTriggers(resource, key, after ?? sentObject, now, TRIGGER_WINDOW_MS).filter((t) => !(t.resource === resource && t.key === key && t.rv !== undefined && t.rv === answerMeta.resourceVersion));
    // Only writes that are stored echo back on the client's watches.
    const stored = ok && (o.mode === 'overlay' || o.mode === 'apply');
    s.wrote(now);
    if (stored) s.ownWrite(resource, key, answerMeta.resourceVersion);
    if (ok && after) s.sent(resource, decodedObject(after), info.verb === 'delete' ? 'DELETED' : 'MODIFIED');

    const id = `${s.name} ${resource} ${key}`;
    let w = this.written.get(id);
    if (!w) this.written.set(id, (w = { client: s.name, resource, key, writes: 0, changing: 0, fields: new Set(), lastCode: 0, lastAt: 0, lastInjected: false }));
    w.writes++;
    if (changed.length) w.changing++;
    for (const f of changed) w.fields.add(f);
    w.lastCode = c.status;
    w.lastAt = now;
    w.lastInjected = injected;

    if (this.tracer.shouldEmit('endpoint', 'write')) {
      this.tracer.emit({
        time: now, stage: 'endpoint', op: 'write', key, rv: answerMeta.resourceVersion, client: s.name, verb: info.verb, resource, mode: o.mode, code: c.status,
        ...(info.subresource ? { subresource: info.subresource } : {}),
        ...(info.verb === 'create' && after ? createdEssentials(after) : {}),
        ...(!ok && isStatus ? { error: String((answer as { message?: string }).message ?? '') } : {}),
        ...(o.mode === 'server-dry-run' && ok ? { answer: 'the object the server would store' } : {}),
        ...(triggers.length ? { after: triggers.map(describeTrigger), trigger: 'inferred' } : {}),
        ...(old ? { old } : {}), ...(after ? { new: after } : {}),
      });
    }
    if (!ok) return;
    const loop = s.observeWrite(resource, key, changed, triggers, o.loopThreshold);
    if (loop) {
      w.loop = { rounds: loop.rounds, fields: loop.fields };
      this.tracer.emit({ time: now, stage: 'endpoint', op: 'loop', key, client: s.name, resource, rounds: loop.rounds, fields: loop.fields, note: `${s.name} rewrote ${key} ${loop.rounds} times in a row, each time after the echo of its own write` });
    }
  }

  /** An update or patch carrying a resourceVersion older than the newest this client was sent: a conflict follows. */
  staleWrite(s: ClientSession, info: RequestInfo, body: Buffer | undefined, contentType: string | undefined): void {
    if ((info.verb !== 'update' && info.verb !== 'patch') || info.name === undefined) return;
    const sentRv = (decodeBody(body, contentType)?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
    if (typeof sentRv !== 'string' || sentRv === '') return;
    const resource = this.resourceOf(info);
    const key = objectKey(info.namespace, info.name);
    const newest = s.newest(resource, key);
    if (newest?.rv === undefined || newest.rv === sentRv || !isOlder(sentRv, newest.rv)) return;
    this.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'stale-write', key, rv: sentRv, client: s.name, resource, newest: newest.rv, note: `${s.name} writes from resourceVersion ${sentRv} though it was sent ${newest.rv}: a 409 Conflict follows` });
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

function tellingQuery(info: RequestInfo): { query?: string } {
  const q = new URLSearchParams();
  for (const k of TELLING_QUERY) for (const v of info.query.getAll(k)) q.append(k, v);
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
