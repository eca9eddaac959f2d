// Serves WATCH: 200 at once, one JSON event per line, start semantics for ""/"0"/N, selector transitions, bookmarks, watch-list, timeouts, faults;
// objects as one-row Tables when the Accept asks for them (kubectl get -w).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimObject } from './api.js';
import { eventLine, withResourceVersion, type Change } from './history.js';
import { ChunkBuilder, CHUNK_FLUSH } from './respond.js';
import { groupVersion, resourceId, type ResourceType } from './registry.js';
import type { ListOptions, ObjectFilter } from './list-options.js';
import { parseResourceVersion } from './list-options.js';
import type { ActiveWatch, ServerContext } from './server-context.js';
import { lowerBound, storageKey } from './store.js';
import { tooLargeResourceVersion } from './status.js';
import { tableRequest } from './table/negotiate.js';
import { printerFor } from './table/printers/index.js';
import { TableWatchEncoder } from './table/table.js';
import { servedView } from './events/served-view.js';
import { DEFAULT_KUBE_VERSION, sendsListBlueprint } from './kube-version.js';

/** A watcher whose socket buffer holds more than this is too slow and is closed (kube's cacher also drops slow watchers). */
const MAX_BUFFERED = 64 * 1024 * 1024;

/** The empty object of the watched kind that BOOKMARK events carry (kube sends zero-valued fields too). */
export function bookmarkObject(type: ResourceType, rv: number, annotations?: Record<string, string>): SimObject {
  const metadata: SimObject['metadata'] = { resourceVersion: String(rv), creationTimestamp: null as unknown as string };
  if (annotations) metadata.annotations = annotations;
  return { kind: type.kind, apiVersion: groupVersion(type), metadata, ...(type.emptyFields ?? {}) };
}

/** Resolves once the socket buffer drained (or the connection closed). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((r) => {
    const done = () => { res.off('drain', done); res.off('close', done); r(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

function errorLine(status: object): string {
  return `{"type":"ERROR","object":${JSON.stringify(status)}}\n`;
}

export async function handleWatch(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, opts: ListOptions, filter: ObjectFilter): Promise<void> {
  const store = ctx.store;
  const startRv = parseResourceVersion(opts.resourceVersion, true);
  // RV ""/"0" watches start with the current state either way; with the WatchList gate on (1.32, 1.34+) kube also
  // defaults them to sendInitialEvents=true (internalversion SetListOptionsDefaults), so they end it with the bookmark.
  const watchList = ctx.featureGates?.WatchList ?? true;
  const sendInitial = opts.sendInitialEvents ?? startRv === 0;
  const endBookmark = sendInitial && opts.allowWatchBookmarks && (opts.sendInitialEvents === true || watchList);
  // kube never transforms a watch-list (sendInitialEvents + bookmarks) into Tables: it falls back to JSON or answers 406.
  const table = tableRequest(req, !endBookmark);
  // A type served from another's storage (events.k8s.io events) watches that storage, converting each object.
  const view = servedView(store.registry, type);
  const stored = view?.storage ?? type;
  const tableEncoder = table && new TableWatchEncoder(printerFor(ctx.store, stored), table);
  /** The event line of a change (shared, pre-rendered bytes unless this watch prints Tables or converts). */
  const changeLine = (c: Change, as: 'ADDED' | 'MODIFIED' | 'DELETED' | 'LEFT'): string | Buffer => {
    if (!tableEncoder && !view) return eventLine(c, as);
    const json = as === 'LEFT' ? withResourceVersion((c.prev ?? c.cur).json, c.rv) : c.cur.json;
    if (view) return `{"type":"${as === 'LEFT' ? 'DELETED' : as}","object":${view.json(json)}}\n`;
    return tableEncoder!.eventLine(as === 'LEFT' ? 'DELETED' : as, json);
  };

  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  let closed = false;
  let sent = 0;
  let lastRv = sendInitial ? 0 : startRv;
  /** While the initial state is being written, live changes wait here (in order). */
  let backlog: Change[] | undefined;
  const timers: NodeJS.Timeout[] = [];
  const subscription: { off?: () => void } = {};
  // Lines produced in one tick are written together: the real server also flushes only when its queue is empty.
  let pending: (string | Buffer)[] = [];
  let flushQueued = false;

  const flush = () => {
    flushQueued = false;
    if (closed || pending.length === 0) return;
    // Corked: one writev for the whole batch, each shared line buffer written as is.
    res.cork();
    for (const p of pending) res.write(p);
    res.uncork();
    pending = [];
    if (res.writableLength > MAX_BUFFERED) finish('reset');
  };

  const finish = (mode: 'end' | 'reset' | 'cut') => {
    if (closed) return;
    if (mode === 'end') flush();
    closed = true;
    for (const t of timers) { clearTimeout(t); clearInterval(t); }
    subscription.off?.();
    ctx.watches.delete(active);
    ctx.faults.watchClosed(active);
    if (mode === 'reset') res.destroy();
    else if (mode === 'end') res.end();
  };
  const active: ActiveWatch = { close: finish };
  ctx.watches.add(active);
  ctx.faults.watchOpened(active);
  res.on('close', () => finish('reset'));
  req.on('aborted', () => finish('reset'));

  const write = (line: string | Buffer, rv: number): void => {
    if (closed) return;
    if (ctx.faults.takeCut()) {
      // Half a line reaches the client, then the connection dies (destroying at once could discard the bytes).
      flush();
      const bytes = typeof line === 'string' ? Buffer.from(line) : line;
      const half = bytes.subarray(0, Math.max(1, bytes.length >> 1));
      finish('cut');
      res.write(half, () => res.destroy());
      setTimeout(() => res.destroy(), 200).unref();
      return;
    }
    pending.push(line);
    if (!flushQueued) { flushQueued = true; process.nextTick(flush); }
    sent++;
    if (rv > lastRv) lastRv = rv;
    const limit = ctx.faults.watchEventLimit;
    if (limit !== null && sent >= limit) { ctx.faults.noteDropped(); finish('end'); }
  };

  const sendBookmark = (rv: number, annotations?: Record<string, string>) => {
    // Never move a client backwards (a watch from a future RV waits for it); nothing during the initial state.
    if (backlog || (rv < lastRv && !annotations)) return;
    const obj = JSON.stringify(bookmarkObject(type, rv, annotations));
    write(tableEncoder ? tableEncoder.eventLine('BOOKMARK', obj) : `{"type":"BOOKMARK","object":${obj}}\n`, rv);
  };

  // Timeouts: timeoutSeconds, or kube's default of 30–60 min (minRequestTimeout 1800 s × (1 + rand)).
  const timeoutMs = opts.timeoutSeconds && opts.timeoutSeconds > 0 ? opts.timeoutSeconds * 1000 : 1_800_000 * (1 + Math.random());
  timers.push(setTimeout(() => finish('end'), timeoutMs));
  if (opts.allowWatchBookmarks) {
    timers.push(setInterval(() => sendBookmark(store.currentRevision()), ctx.bookmarkIntervalMs));
    if (timeoutMs > 2000) timers.push(setTimeout(() => sendBookmark(store.currentRevision()), timeoutMs - 2000));
  }

  const ns = type.namespaced ? namespace : undefined;
  const deliver = (c: Change) => {
    if (closed || (ns && c.namespace !== ns)) return;
    if (backlog) { backlog.push(c); return; }
    emit(c);
  };
  const emit = (c: Change) => {
    if (filter.empty) { write(changeLine(c, c.type), c.rv); return; }
    const now = c.type !== 'DELETED' && filter.matches(c.cur.meta);
    const before = c.type === 'ADDED' ? false : filter.matches((c.prev ?? c.cur).meta);
    if (c.type === 'DELETED') { if (before) write(changeLine(c, 'DELETED'), c.rv); return; }
    if (now && before) write(changeLine(c, 'MODIFIED'), c.rv);
    else if (now) write(changeLine(c, 'ADDED'), c.rv);
    else if (before) write(changeLine(c, 'LEFT'), c.rv);
  };

  if (!sendInitial) {
    const from = startRv === 0 ? store.currentRevision() : startRv;
    if (from < store.history.compactedRevision) {
      write(errorLine({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${from} (${store.history.compactedRevision})`, reason: 'Expired', code: 410 }), 0);
      finish('end');
      return;
    }
    // The replay is taken and the subscription made in one synchronous step, so no change can fall
    // between them; live changes wait in the backlog while the replay is written with backpressure
    // (a long history must not overflow the socket buffer and get the watch reset).
    const id = resourceId(stored);
    const replay: Change[] = [];
    for (const c of store.history.since(from)) if (c.resId === id && !(ns && c.namespace !== ns)) replay.push(c);
    backlog = [];
    subscription.off = store.watch(stored, { onChange: deliver, onGone: () => finish('end') });
    for (let i = 0; i < replay.length; i++) {
      if (closed) return;
      emit(replay[i]);
      flush();
      if (res.writableLength > CHUNK_FLUSH) await drained(res);
    }
    if (closed) return;
    const queued = backlog;
    backlog = undefined;
    for (const c of queued) deliver(c);
    return;
  }

  if (startRv > store.currentRevision()) {
    const ok = await store.waitForRevision(startRv, ctx.tooLargeWaitMs);
    if (closed) return;
    if (!ok) {
      write(errorLine(tooLargeResourceVersion(startRv, store.currentRevision()).status), 0);
      finish('end');
      return;
    }
  }
  // Snapshot and subscription in one synchronous step; changes arriving while the state is written wait in the backlog.
  const snap = store.snapshot(stored, store.currentRevision());
  backlog = [];
  subscription.off = store.watch(stored, { onChange: deliver, onGone: () => finish('end') });
  let from = 0, to = snap.keys.length;
  if (ns) [from, to] = store.range(snap.keys, ns);
  if (filter.name !== undefined) {
    const k = storageKey(ns, filter.name);
    const i = lowerBound(snap.keys, k);
    [from, to] = snap.keys[i] === k ? [i, i + 1] : [0, 0];
  }
  // Initial events are encoded straight into ~1 MB buffers, waiting for the socket to drain in between.
  const out = new ChunkBuilder();
  let lines = 0;
  for (let i = from; i < to; i++) {
    const o = snap.objects[i];
    if (!filter.empty && !filter.matches(o.meta)) continue;
    if (tableEncoder) {
      out.add(tableEncoder.eventLine('ADDED', o.json));
    } else {
      out.add('{"type":"ADDED","object":');
      out.add(view ? view.json(o.json) : o.json);
      out.add('}\n');
    }
    lines++;
    if (out.size >= CHUNK_FLUSH) {
      if (closed) return;
      const ok = res.write(out.take());
      sent += lines;
      lines = 0;
      if (!ok) await drained(res);
    }
  }
  if (closed) return;
  if (lines) { res.write(out.take()); sent += lines; }
  lastRv = snap.rv;
  const queued = backlog;
  backlog = undefined;
  // The drop-initial-events-end fault plays a proxy that drops this bookmark: client-go 1.35 then never syncs.
  if (endBookmark && !ctx.faults.dropsInitialEventsEnd) {
    sendBookmark(snap.rv, {
      'k8s.io/initial-events-end': 'true',
      ...(sendsListBlueprint(ctx.kubeVersion ?? DEFAULT_KUBE_VERSION) ? {
        'kubernetes.io/initial-events-list-blueprint': Buffer.from(JSON.stringify({ kind: type.listKind, apiVersion: groupVersion(type), metadata: {}, items: null })).toString('base64'),
      } : {}),
    });
  }
  for (const c of queued) deliver(c);
}
