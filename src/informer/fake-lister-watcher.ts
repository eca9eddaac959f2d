// An in-memory ListerWatcher for tests: a revisioned object store with paged lists, resumable watches and injectable faults.
import { StatusError, ConnectionError, StreamCutError } from './errors.js';
import { INITIAL_EVENTS_END_ANNOTATION } from './reflector-state.js';
import { metaNamespaceKey, type KubeObject, type ListOptions, type ListPage, type ListerWatcher, type Status, type WatchEvent, type WatchStream } from './types.js';

export interface FakeListerWatcherOptions {
  /** Set on objects that have no `kind` (events and list items). Default "Pod". */
  kind?: string;
  /** Set on objects that have no `apiVersion`. Default "v1". */
  apiVersion?: string;
  /** The global resourceVersion before the first change. Default 1000. */
  resourceVersion?: number;
  /** Honour `limit` on RV="0" lists, like a server without a watch cache (the watch cache ignores it). Default false. */
  limitAtResourceVersion0?: boolean;
  /** Support `sendInitialEvents` watches; when false they get the 422 a WatchList-disabled server sends. Default true. */
  watchList?: boolean;
  /** Send a watch-list's initial events but never the initial-events-end bookmark (a proxy that drops bookmarks). Default false. */
  dropInitialEventsEnd?: boolean;
}

/** One request the fake received, with the options exactly as passed. */
export interface FakeRequest {
  verb: 'list' | 'watch';
  options: ListOptions;
  /** For watches: the FakeWatch serving it (absent when the request failed). */
  watch?: FakeWatch;
}

/**
 * The server side of one watch: the test pushes events and ends it; the client iterates it and may close it.
 * Events pushed after the end are ignored.
 */
export class FakeWatch implements WatchStream {
  /** True once the client called close() (or its signal aborted). */
  closedByClient = false;
  private queue: WatchEvent[] = [];
  private ended = false;
  private error?: unknown;
  private wake?: () => void;
  /** Called once when the stream ends, however it ends (the lister-watcher drops its abort listener there). */
  onEnd?: () => void;

  constructor(
    readonly id: number,
    readonly options: ListOptions,
  ) {}

  /** Still delivering events (neither ended by the server nor closed by the client). */
  get open(): boolean {
    return !this.ended;
  }

  push(event: WatchEvent): void {
    if (this.ended) return;
    this.queue.push(event);
    this.wakeUp();
  }

  /** Ends the stream after the queued events: normally (EOF), or by throwing `error` from the iterator. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.wakeUp();
    this.onEnd?.();
  }

  close(): void {
    this.closedByClient = true;
    this.queue = [];
    this.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: async (): Promise<IteratorResult<WatchEvent>> => {
        for (;;) {
          const ev = this.queue.shift();
          if (ev) return { value: ev, done: false };
          if (this.ended) {
            if (this.error !== undefined && !this.closedByClient) {
              const err = this.error;
              this.error = undefined;
              throw err;
            }
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      },
      return: async (): Promise<IteratorResult<WatchEvent>> => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

interface HistoryEntry {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

interface Snapshot {
  rv: number;
  items: KubeObject[];
}

/**
 * A ListerWatcher over an in-memory store with one global resourceVersion. Lists page by key with opaque
 * continue tokens over a consistent snapshot; watches replay history after their resourceVersion (or
 * send synthetic ADDEDs for ""/"0", or a watch-list's initial events and end bookmark), then live changes.
 * Compaction makes older watches get a 410 ERROR event and older continue tokens a 410 answer.
 * Selectors are not supported. Every request is recorded in `requests`.
 */
export class FakeListerWatcher implements ListerWatcher {
  readonly requests: FakeRequest[] = [];
  /** Every watch ever opened, in order. */
  readonly watches: FakeWatch[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: HistoryEntry[] = [];
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly listFailures: unknown[] = [];
  private readonly watchFailures: unknown[] = [];
  private readonly waiters: { check: () => boolean; resolve: () => void }[] = [];
  private rv: number;
  private compacted = 0;
  private tokenSeq = 0;
  private readonly kind: string;
  private readonly apiVersion: string;

  constructor(private readonly opts: FakeListerWatcherOptions = {}) {
    this.rv = opts.resourceVersion ?? 1000;
    this.kind = opts.kind ?? 'Pod';
    this.apiVersion = opts.apiVersion ?? 'v1';
  }

  // ---- state -------------------------------------------------------------------------------------

  /** The current global resourceVersion. */
  get resourceVersion(): string {
    return String(this.rv);
  }

  /** The stored objects, sorted by key. */
  items(): KubeObject[] {
    return [...this.objects.keys()].sort().map((k) => this.objects.get(k)!);
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** Creates or replaces an object (ADDED if new, MODIFIED otherwise) at the next resourceVersion; returns the stored copy. */
  apply(obj: KubeObject): KubeObject {
    const stored = this.withTypeMeta(structuredClone(obj));
    const key = metaNamespaceKey(stored);
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    stored.metadata.resourceVersion = String(++this.rv);
    this.objects.set(key, stored);
    this.record(type, stored);
    return stored;
  }

  /** Creates several objects (one resourceVersion each). */
  seed(objs: KubeObject[]): void {
    for (const o of objs) this.apply(o);
  }

  /** Deletes by key or object; the DELETED event carries the deletion resourceVersion. Returns false if absent. */
  remove(keyOrObj: string | KubeObject): boolean {
    const key = typeof keyOrObj === 'string' ? keyOrObj : metaNamespaceKey(keyOrObj);
    const old = this.objects.get(key);
    if (!old) return false;
    this.objects.delete(key);
    const last = structuredClone(old);
    last.metadata.resourceVersion = String(++this.rv);
    this.record('DELETED', last);
    return true;
  }

  /** Sends a BOOKMARK at the current resourceVersion to open watches that allow bookmarks. */
  bookmark(): void {
    for (const w of this.openWatches) if (w.options.allowWatchBookmarks) w.push(this.bookmarkEvent(this.rv));
  }

  /** Forgets history up to `rv` (default: now): older watches get 410, older continue tokens expire. */
  compact(rv: number = this.rv): void {
    this.compacted = Math.max(this.compacted, rv);
  }

  // ---- faults ------------------------------------------------------------------------------------

  /** The next `times` list requests fail with `err` (queued after earlier failures). */
  failNextList(err: unknown, times = 1): void {
    for (let i = 0; i < times; i++) this.listFailures.push(err);
  }

  /** The next `times` watch requests fail with `err` before any stream exists. */
  failNextWatch(err: unknown, times = 1): void {
    for (let i = 0; i < times; i++) this.watchFailures.push(err);
  }

  /** Pushes a raw event to every open watch. */
  emit(event: WatchEvent): void {
    for (const w of this.openWatches) w.push(event);
  }

  /** Sends each open watch an ERROR 410 Expired event and ends it, as the watch cache does for a too-old RV. */
  expireWatches(message = 'too old resource version'): void {
    for (const w of this.openWatches) {
      w.push({ type: 'ERROR', object: statusObject(410, 'Expired', message) as unknown as KubeObject });
      w.end();
    }
  }

  /** Ends every open watch normally (the server's timeout). */
  closeWatches(): void {
    for (const w of this.openWatches) w.end();
  }

  /** Ends every open watch in the middle of a line (StreamCutError), or with the given error. */
  cutWatches(error: unknown = new StreamCutError('{"type":"MODIFIED","obj')): void {
    for (const w of this.openWatches) w.end(error);
  }

  // ---- observation -------------------------------------------------------------------------------

  get openWatches(): FakeWatch[] {
    return this.watches.filter((w) => w.open);
  }

  get listRequests(): ListOptions[] {
    return this.requests.filter((r) => r.verb === 'list').map((r) => r.options);
  }

  get watchRequests(): ListOptions[] {
    return this.requests.filter((r) => r.verb === 'watch').map((r) => r.options);
  }

  /** Resolves once `n` watch streams have been opened (successfully) in total; returns the n-th. */
  async waitForWatch(n: number): Promise<FakeWatch> {
    await this.waitFor(() => this.watches.length >= n);
    return this.watches[n - 1];
  }

  /** Resolves once `n` requests have been received in total. */
  async waitForRequests(n: number): Promise<void> {
    await this.waitFor(() => this.requests.length >= n);
  }

  private waitFor(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ check, resolve }));
  }

  private notify(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (w.check()) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  // ---- ListerWatcher -----------------------------------------------------------------------------

  async list(options: ListOptions, _signal?: AbortSignal): Promise<ListPage> {
    this.requests.push({ verb: 'list', options: { ...options } });
    this.notify();
    const failure = this.listFailures.shift();
    if (failure !== undefined) throw failure;
    const limit = options.limit ?? 0;
    let snap: Snapshot;
    let offset = 0;
    if (options.continue) {
      const found = this.snapshots.get(options.continue);
      if (!found) throw new StatusError(statusObject(400, 'BadRequest', 'invalid continue token'));
      if (found.rv <= this.compacted) {
        throw new StatusError(
          statusObject(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'),
        );
      }
      snap = found;
      offset = Number(options.continue.split(':')[1]);
    } else {
      const rvParam = options.resourceVersion ?? '';
      const requested = rvParam === '' || rvParam === '0' ? 0 : Number(rvParam);
      if (requested > this.rv) throw tooLargeResourceVersion(requested, this.rv);
      const exact = options.resourceVersionMatch === 'Exact' || (requested > 0 && limit > 0 && !options.resourceVersionMatch);
      if (exact && requested < this.rv) {
        if (requested <= this.compacted) throw new StatusError(statusObject(410, 'Expired', 'The resourceVersion for the provided list is too old.'));
        snap = { rv: requested, items: this.stateAt(requested) };
      } else snap = { rv: this.rv, items: this.items() };
    }
    const paged = limit > 0 && (options.resourceVersion !== '0' || this.opts.limitAtResourceVersion0 || options.continue);
    const end = paged ? Math.min(snap.items.length, offset + limit) : snap.items.length;
    const page: ListPage = {
      kind: `${this.kind}List`,
      apiVersion: this.apiVersion,
      metadata: { resourceVersion: String(snap.rv) },
      items: snap.items.slice(offset, end),
    };
    if (end < snap.items.length) {
      const token = `t${++this.tokenSeq}:${end}`;
      this.snapshots.set(token, snap);
      page.metadata.continue = token;
      page.metadata.remainingItemCount = snap.items.length - end;
    }
    page.bytes = Buffer.byteLength(JSON.stringify(page));
    return page;
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const request: FakeRequest = { verb: 'watch', options: { ...options } };
    this.requests.push(request);
    this.notify();
    const failure = this.watchFailures.shift();
    if (failure !== undefined) throw failure;
    if (options.sendInitialEvents && this.opts.watchList === false) {
      throw new StatusError(statusObject(422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
    }
    const w = new FakeWatch(this.watches.length + 1, request.options);
    request.watch = w;
    // The listener goes when the watch ends: a test's one signal outlives many watches (more than ten listeners
    // on it is Node's MaxListenersExceededWarning, and each would keep its ended watch alive).
    const onAbort = () => w.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    w.onEnd = () => signal?.removeEventListener('abort', onAbort);
    const rvParam = options.resourceVersion ?? '';
    const requested = rvParam === '' || rvParam === '0' ? 0 : Number(rvParam);
    if (options.sendInitialEvents) {
      if (requested > this.rv) {
        w.push({ type: 'ERROR', object: tooLargeResourceVersion(requested, this.rv).status as unknown as KubeObject });
        w.end();
      } else {
        for (const o of this.items()) w.push(this.event('ADDED', o));
        if (options.allowWatchBookmarks && !this.opts.dropInitialEventsEnd) {
          const bm = this.bookmarkEvent(this.rv);
          bm.object.metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
          w.push(bm);
        }
      }
    } else if (requested === 0) {
      for (const o of this.items()) w.push(this.event('ADDED', o));
    } else if (requested < this.compacted) {
      w.push({ type: 'ERROR', object: statusObject(410, 'Expired', `too old resource version: ${requested} (${this.compacted})`) as unknown as KubeObject });
      w.end();
    } else {
      for (const h of this.history) if (h.rv > requested) w.push(this.event(h.type, h.object));
    }
    this.watches.push(w);
    this.notify();
    return w;
  }

  // ---- internals ---------------------------------------------------------------------------------

  private record(type: HistoryEntry['type'], object: KubeObject): void {
    this.history.push({ rv: this.rv, type, object });
    for (const w of this.openWatches) w.push(this.event(type, object));
  }

  private event(type: WatchEvent['type'], object: KubeObject): WatchEvent {
    const ev: WatchEvent = { type, object };
    ev.bytes = Buffer.byteLength(JSON.stringify(ev)) + 1;
    return ev;
  }

  private bookmarkEvent(rv: number): WatchEvent {
    return this.event('BOOKMARK', { kind: this.kind, apiVersion: this.apiVersion, metadata: { resourceVersion: String(rv) } });
  }

  private withTypeMeta(obj: KubeObject): KubeObject {
    if (!obj.kind) obj.kind = this.kind;
    if (!obj.apiVersion) obj.apiVersion = this.apiVersion;
    if (!obj.metadata) obj.metadata = {};
    return obj;
  }

  /** The objects as they were at `rv`, rebuilt from history (valid for rv above the compaction point). */
  private stateAt(rv: number): KubeObject[] {
    const state = new Map<string, KubeObject>();
    for (const h of this.history) {
      if (h.rv > rv) break;
      if (h.type === 'DELETED') state.delete(metaNamespaceKey(h.object));
      else state.set(metaNamespaceKey(h.object), h.object);
    }
    return [...state.keys()].sort().map((k) => state.get(k)!);
  }
}

// ---- canned errors, shaped as the API server sends them ----------------------------------------------

function statusObject(code: number, reason: string, message: string, details?: Status['details']): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
}

function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(
    statusObject(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
  );
}

/** Errors to feed to failNextList / failNextWatch / emit. */
export const fakeErrors = {
  /** 410 Expired (a compacted resourceVersion). */
  expired: (message = 'The resourceVersion for the provided list is too old.') => new StatusError(statusObject(410, 'Expired', message)),
  /** 504 with cause ResourceVersionTooLarge. */
  tooLargeResourceVersion: (requested = 99_999, current = 1000) => tooLargeResourceVersion(requested, current),
  /** 429, with a Retry-After header when `retryAfterSeconds` is given. */
  tooManyRequests: (retryAfterSeconds?: number) =>
    new StatusError(statusObject(429, 'TooManyRequests', 'Too many requests, please try again later.', retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined), retryAfterSeconds),
  internalError: (message = 'Internal error occurred: etcdserver: request timed out') => new StatusError(statusObject(500, 'InternalError', message)),
  /** 422, e.g. what a server without WatchList sends for sendInitialEvents. */
  invalid: (message = 'ListOptions.meta.k8s.io "" is invalid') => new StatusError(statusObject(422, 'Invalid', message)),
  forbidden: (message = 'pods is forbidden: User "system:anonymous" cannot watch resource "pods"') => new StatusError(statusObject(403, 'Forbidden', message)),
  connectionRefused: () => new ConnectionError('connect ECONNREFUSED 127.0.0.1:6443', 'ECONNREFUSED'),
  connectionReset: () => new ConnectionError('read ECONNRESET', 'ECONNRESET'),
  /** The ERROR event object of a 410, for emit(). */
  expiredEvent: (message = 'too old resource version: 1 (2)'): WatchEvent => ({ type: 'ERROR', object: statusObject(410, 'Expired', message) as unknown as KubeObject }),
  /** The ERROR event object of a 429, for emit(). */
  tooManyRequestsEvent: (): WatchEvent => ({ type: 'ERROR', object: statusObject(429, 'TooManyRequests', 'Too many requests, please try again later.') as unknown as KubeObject }),
};
