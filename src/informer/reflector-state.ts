// The reflector as data: its states, the inputs that move it, the effects it asks for, and one pure step function (client-go 1.32 reflector.go).
import { nextBackoff, type BackoffConfig, type BackoffState } from './backoff.js';
import { ConnectionError, StatusError, WatchDecodeError, answerBytes, isExpired, isTooLargeResourceVersion, isTooManyRequests } from './errors.js';
import { clampedRetryAfterMs, MAX_RETRY_AFTER_RETRIES, retryAfterMs } from './retry-after.js';
import type { Stage } from './trace.js';
import { metaNamespaceKey, type KubeObject, type ListOptions, type StartAt, type Status, type WatchEvent } from './types.js';

/** The annotation on the BOOKMARK that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Fixed for a reflector's life. */
export interface ReflectorConfig {
  /** Description used in messages, e.g. "pods". */
  name: string;
  /** When set, watch events whose object has another `kind` are dropped (client-go's GVK check). */
  expectedKind?: string;
  /** An explicit page size (client-go's WatchListPageSize): used for every list when set. */
  pageSize?: number;
  useWatchList: boolean;
  /**
   * How long a watch-list may go without its initial-events-end bookmark before a `no-initial-events-end` record says
   * so (0: never). client-go waits forever (its watchList loop retries until the bookmark comes; kubernetes #140890).
   */
  initialEventsEndTimeoutMs: number;
  /** At that bound, give up on watch-list for good and LIST+WATCH instead, as a fixed client would (`--fallback`). */
  fallbackWithoutInitialEventsEnd: boolean;
  /** Watches ask for timeoutSeconds uniformly in [min, 2·min). */
  minWatchTimeoutSeconds: number;
  /** Watch only, from this resourceVersion, with no initial list. */
  startAt?: StartAt;
  backoff: BackoffConfig;
}

/** What the reflector remembers across phases (client-go's Reflector fields). */
export interface ReflectorMemory {
  /** The last resourceVersion seen by a list, a watch-list or any watch event (BOOKMARK included). */
  lastSyncResourceVersion: string;
  /** client-go's isLastSyncResourceVersionUnavailable: the last list/watch-list at it was Expired or too large. */
  lastSyncResourceVersionUnavailable: boolean;
  /** An RV="0" list came back paginated: the server has no watch cache, keep paging relists. */
  paginatedResult: boolean;
  /** A list or watch-list has been replaced into the store (or a startAt watch opened). */
  synced: boolean;
  /** A list has been issued before (later ones are relists). */
  listed: boolean;
  /** Id of the latest watch connection; each watch request takes the next one. */
  conn: number;
  backoff: BackoffState;
  /** Consecutive Retry-After waits for the current watch request (client-go's REST layer allows 10). */
  retryAfterRetries: number;
  /** A startAt watch has not yet received an event: an Expired answer now is the start RV's fault. */
  startAtPending: boolean;
  /** When the current watch-list sync began (its first attempt); undefined when none is pending. */
  watchListSince: number | undefined;
  /** The server (or a proxy) dropped the initial-events-end bookmark and we fell back: LIST+WATCH from now on. */
  watchListDropped: boolean;
}

/** Where a restart goes after a wait: a full ListAndWatch, a re-watch from the last RV, or another watch-list attempt. */
export type ResumeKind = 'list-and-watch' | 'watch' | 'watch-list';

/**
 * The reflector's phase. Each says what is in flight and what leaves it:
 * - Idle: constructed, not started. `start` leaves it.
 * - Listing: a paged LIST at `resourceVersion` is in flight (`unavailableRetry`: the immediate RV="" retry).
 *   `listed` → StartingWatch; `listFailed` → Listing again (RV "") or BackingOff.
 * - StartingWatch: a watch (or watch-list, when `watchList`) request is in flight.
 *   `watchOpened` → Watching / WatchListing; `watchFailed` → BackingOff, Listing or Stopped.
 * - WatchListing: a watch-list stream is open and its initial events are being collected.
 *   The initial-events-end BOOKMARK → Watching on the same stream.
 * - Watching: a watch stream is open; events flow into the store. A close re-watches, an error backs off.
 * - BackingOff: waiting `ms` (a backoff, or a server's Retry-After) before resuming with `next`.
 * - Stopped: final; `error` is set when the run must reject.
 */
export type ReflectorPhase =
  | { kind: 'Idle' }
  | { kind: 'Listing'; resourceVersion: string; pageSize: number; unavailableRetry: boolean }
  | { kind: 'StartingWatch'; conn: number; resourceVersion: string; watchList: boolean; start: number }
  | { kind: 'WatchListing'; conn: number; start: number; events: number; resourceVersion: string }
  | { kind: 'Watching'; conn: number; start: number; events: number }
  | { kind: 'BackingOff'; ms: number; next: ResumeKind; reason: string }
  | { kind: 'Stopped'; error?: Error };

export interface ReflectorState {
  phase: ReflectorPhase;
  memory: ReflectorMemory;
}

/** What happened: I/O results reported by the driver, timers, and the stop signal. */
export type ReflectorInput =
  | { kind: 'start' }
  | { kind: 'listed'; items: KubeObject[]; resourceVersion: string; paginatedResult: boolean; pages: number; ms: number }
  | { kind: 'listFailed'; error: unknown }
  | { kind: 'watchOpened'; conn: number }
  | { kind: 'watchFailed'; conn: number; error: unknown }
  | { kind: 'event'; conn: number; event: WatchEvent }
  /** The stream ended without an error event: EOF, a line cut by the connection ending, or a broken connection. */
  | { kind: 'closed'; conn: number; reason: 'eof' | 'stream-cut' | 'connection'; error?: unknown }
  /** Reading the stream failed: an undecodable line, or a Status thrown by the stream. */
  | { kind: 'streamError'; conn: number; error: unknown }
  | { kind: 'watchdog'; conn: number; silentMs: number }
  | { kind: 'slept' }
  /** The bound set by `awaitInitialEventsEnd` has passed. */
  | { kind: 'initialEventsOverdue' }
  | { kind: 'abort' };

/** What the driver must do, in order. */
export type ReflectorEffect =
  | { kind: 'list'; options: ListOptions; pageSize: number }
  | { kind: 'watch'; conn: number; options: ListOptions }
  | { kind: 'closeWatch'; conn: number }
  | { kind: 'sleep'; ms: number; reason: 'backoff' | 'retry-after' }
  | { kind: 'cancelSleep' }
  /** Report `initialEventsOverdue` after `ms` (a watch-list sync has begun). */
  | { kind: 'awaitInitialEventsEnd'; ms: number }
  | { kind: 'add' | 'update' | 'delete'; object: KubeObject }
  /** Watch-list: apply to the temporary store that becomes the replaced list. */
  | { kind: 'collect'; op: 'add' | 'update' | 'delete'; object: KubeObject }
  | { kind: 'resetCollected' }
  /** `items: 'collected'` replaces with the temporary store's contents. */
  | { kind: 'replace'; items: KubeObject[] | 'collected'; resourceVersion: string }
  | { kind: 'updateResourceVersion'; resourceVersion: string }
  | { kind: 'startResync' }
  | { kind: 'stopResync' }
  | { kind: 'count'; stat: 'expired' | 'relists' }
  | { kind: 'trace'; stage: Stage; op: string; detail: Record<string, unknown> }
  | { kind: 'done'; error?: Error };

/** Everything impure a step may consult, supplied by the driver (fixed in tests). */
export interface StepContext {
  config: ReflectorConfig;
  now: number;
  /** A draw in [0, 1); called at most once per purpose in a step. */
  random: () => number;
  /** Whether to produce trace effects at all. */
  tracing: boolean;
}

export interface StepResult {
  state: ReflectorState;
  effects: ReflectorEffect[];
}

export function initialReflectorState(config: ReflectorConfig, now: number): ReflectorState {
  return {
    phase: { kind: 'Idle' },
    memory: {
      lastSyncResourceVersion: '',
      lastSyncResourceVersionUnavailable: false,
      paginatedResult: false,
      synced: false,
      listed: false,
      conn: 0,
      backoff: { durationMs: config.backoff.initialMs, capped: false, lastBackoffAt: now },
      retryAfterRetries: 0,
      startAtPending: false,
      watchListSince: undefined,
      watchListDropped: false,
    },
  };
}

/** client-go's relistResourceVersion: "" after an expired/too-large list, "0" before any sync, else the last RV. */
export function relistResourceVersion(m: ReflectorMemory): string {
  if (m.lastSyncResourceVersionUnavailable) return '';
  if (m.lastSyncResourceVersion === '') return '0';
  return m.lastSyncResourceVersion;
}

/** client-go's rewatchResourceVersion (where a watch-list starts). */
export function rewatchResourceVersion(m: ReflectorMemory): string {
  return m.lastSyncResourceVersionUnavailable ? '' : m.lastSyncResourceVersion;
}

/**
 * client-go's page-size rules for a list at `rv`: an explicit size wins; a server that paginated an RV="0"
 * list keeps getting 500; a relist at a concrete RV is unpaged so the watch cache can serve it; else 500.
 */
export function listPageSize(config: ReflectorConfig, m: ReflectorMemory, rv: string): number {
  if (config.pageSize) return config.pageSize;
  if (m.paginatedResult) return 500;
  if (rv !== '' && rv !== '0') return 0;
  return 500;
}

/** client-go's isWatchErrorRetriable: connection refused or 429 → back off and re-watch, no relist. */
export function isWatchErrorRetriable(err: unknown): boolean {
  return (err instanceof ConnectionError && err.refused) || isTooManyRequests(err);
}

/** An ERROR event's object as an error (client-go's apierrors.FromObject). */
export function statusErrorFromEvent(event: WatchEvent): StatusError {
  const o = event.object as unknown as Partial<Status>;
  if (o && o.kind === 'Status' && typeof o.code === 'number') return new StatusError(o as Status);
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: 500,
    reason: 'InternalError',
    message: `unexpected error object in watch ERROR event: ${JSON.stringify(event.object).slice(0, 200)}`,
  });
}

/** client-go's streamwatcher turns an undecodable event into a 500 with cause ClientWatchDecoding. */
export function decodeErrorStatus(err: WatchDecodeError): StatusError {
  const message = err.message.startsWith('unable to decode') ? err.message : `unable to decode an event from the watch stream: ${err.message}`;
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: 500,
    reason: 'InternalError',
    message,
    details: { causes: [{ reason: 'ClientWatchDecoding', message }] },
  });
}

/** The message client-go gives a watch that closed within a second with no events. */
export function veryShortWatchMessage(name: string): string {
  return `very short watch: ${name}: Unexpected watch close - watch lasted less than a second and no items received`;
}

/** Go's rendering of a whole duration, as the message quotes the bound: 30s, 1.5s, 2m0s, 250ms. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = `${Number(((ms % 60_000) / 1000).toFixed(3))}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

/** What kwatch says when a watch-list's initial events never end (the wording). */
export function noInitialEventsEndMessage(boundMs: number): string {
  return `no initial-events-end after ${goDuration(boundMs)}: the server or a proxy in between drops it; client-go would wait forever`;
}

/** Decides everything: given a state and what happened, the next state and the effects to perform. Pure. */
export function step(state: ReflectorState, input: ReflectorInput, ctx: StepContext): StepResult {
  const b = new Builder(state, ctx);
  const p = state.phase;
  if (p.kind === 'Stopped') return b.result();
  switch (input.kind) {
    case 'start':
      if (p.kind !== 'Idle') return b.result();
      if (ctx.config.startAt) {
        const { resourceVersion, items } = ctx.config.startAt;
        if (items) {
          b.trace('reflector', 'seeded', { rv: resourceVersion, items: items.length });
          b.effect({ kind: 'replace', items, resourceVersion });
        }
        // The watch resumes a state held before (seeded, or the caller's): a list after it replaces that state, a relist.
        b.memory({ lastSyncResourceVersion: resourceVersion, startAtPending: true, listed: true });
        b.effect({ kind: 'startResync' });
        b.startWatch();
      } else b.listAndWatch('initial');
      return b.result();
    case 'abort':
      return b.stop();
    case 'listed':
      if (p.kind !== 'Listing') return b.result();
      return onListed(b, p, input);
    case 'listFailed':
      if (p.kind !== 'Listing') return b.result();
      return onListFailed(b, p, input.error);
    case 'watchOpened':
      if (p.kind !== 'StartingWatch' || p.conn !== input.conn) return b.result();
      b.memory({ retryAfterRetries: 0 });
      if (p.watchList) b.phase({ kind: 'WatchListing', conn: p.conn, start: p.start, events: 0, resourceVersion: '' });
      else {
        b.phase({ kind: 'Watching', conn: p.conn, start: p.start, events: 0 });
        if (b.m.startAtPending && !b.m.synced) {
          b.memory({ synced: true });
          b.trace('reflector', 'synced', { from: 'startAt', rv: b.m.lastSyncResourceVersion });
        }
      }
      return b.result();
    case 'watchFailed':
      if (p.kind !== 'StartingWatch' || p.conn !== input.conn) return b.result();
      return onWatchFailed(b, p, input.error);
    case 'event':
      if (p.kind === 'Watching' && p.conn === input.conn) return onWatchEvent(b, p, input.event);
      if (p.kind === 'WatchListing' && p.conn === input.conn) return onWatchListEvent(b, p, input.event);
      return b.result();
    case 'closed':
      if (p.kind === 'Watching' && p.conn === input.conn) return onWatchClosed(b, p, input);
      if (p.kind === 'WatchListing' && p.conn === input.conn) return onWatchListClosed(b, p, input);
      return b.result();
    case 'streamError': {
      const err = input.error instanceof WatchDecodeError ? decodeErrorStatus(input.error) : input.error;
      if (p.kind === 'Watching' && p.conn === input.conn) return onWatchError(b, p, err);
      if (p.kind === 'WatchListing' && p.conn === input.conn) return onWatchListError(b, p, err, true);
      return b.result();
    }
    case 'watchdog':
      if ((p.kind === 'Watching' || p.kind === 'WatchListing') && p.conn === input.conn) {
        b.effect({ kind: 'closeWatch', conn: p.conn });
        b.trace('reflector', 'watchdog', { conn: p.conn, silentMs: input.silentMs, events: p.events });
        if (p.kind === 'Watching') b.startWatch();
        else b.startWatchList();
      }
      return b.result();
    case 'initialEventsOverdue':
      return onInitialEventsOverdue(b, p);
    case 'slept':
      if (p.kind !== 'BackingOff') return b.result();
      if (p.next === 'watch') b.startWatch();
      else if (p.next === 'watch-list') b.startWatchList();
      else b.listAndWatch(p.reason);
      return b.result();
  }
}

function onListed(b: Builder, p: Extract<ReflectorPhase, { kind: 'Listing' }>, input: Extract<ReflectorInput, { kind: 'listed' }>): StepResult {
  const firstSync = !b.m.synced;
  b.memory({
    lastSyncResourceVersionUnavailable: false,
    paginatedResult: b.m.paginatedResult || (p.resourceVersion === '0' && input.paginatedResult),
    lastSyncResourceVersion: input.resourceVersion,
    synced: true,
    startAtPending: false,
  });
  b.trace('reflector', 'listed', { rv: input.resourceVersion, items: input.items.length, pages: input.pages, ms: input.ms, paginated: input.paginatedResult });
  b.effect({ kind: 'replace', items: input.items, resourceVersion: input.resourceVersion });
  if (firstSync) b.trace('reflector', 'synced', { from: 'list', rv: input.resourceVersion, items: input.items.length });
  b.effect({ kind: 'startResync' });
  b.startWatch();
  return b.result();
}

function onListFailed(b: Builder, p: Extract<ReflectorPhase, { kind: 'Listing' }>, error: unknown): StepResult {
  const expired = isExpired(error);
  if (expired) b.effect({ kind: 'count', stat: 'expired' });
  if ((expired || isTooLargeResourceVersion(error)) && !p.unavailableRetry) {
    // The RV we listed at is gone (or not there yet): list again at once, from the latest state.
    b.memory({ lastSyncResourceVersionUnavailable: true });
    b.trace('reflector', expired ? 'expired' : 'list-error', { rv: p.resourceVersion, during: 'list', error: message(error), ...bytesOf(error) });
    b.list(p.pageSize, true, expired ? 'list at last RV expired' : 'resource version too large');
    return b.result();
  }
  if (expired) b.memory({ lastSyncResourceVersionUnavailable: true });
  b.trace('reflector', 'list-error', { rv: p.resourceVersion, error: `${b.ctx.config.name}: failed to list: ${message(error)}`, ...bytesOf(error) });
  b.backoff('list-and-watch', 'list failed');
  return b.result();
}

function onWatchFailed(b: Builder, p: Extract<ReflectorPhase, { kind: 'StartingWatch' }>, error: unknown): StepResult {
  const expired = isExpired(error);
  if (expired) b.effect({ kind: 'count', stat: 'expired' });
  b.trace('reflector', 'watch-error', { conn: p.conn, rv: p.resourceVersion, during: 'watch-start', error: message(error), ...bytesOf(error) });
  // client-go's REST layer first honours a Retry-After header on 429/5xx, up to 10 times per request.
  const wait = retryAfterMs(error);
  if (wait !== undefined && b.m.retryAfterRetries < MAX_RETRY_AFTER_RETRIES) {
    b.memory({ retryAfterRetries: b.m.retryAfterRetries + 1 });
    const asked = clampedRetryAfterMs(error);
    b.trace('reflector', 'retry-after', { during: 'watch', seconds: wait / 1000, attempt: b.m.retryAfterRetries, ...(asked !== undefined ? { requestedSeconds: asked / 1000, capped: true } : {}) });
    b.phase({ kind: 'BackingOff', ms: wait, next: p.watchList ? 'watch-list' : 'watch', reason: 'retry-after' });
    b.effect({ kind: 'sleep', ms: wait, reason: 'retry-after' });
    return b.result();
  }
  b.memory({ retryAfterRetries: 0 });
  if (p.watchList) return watchListFailure(b, error, expired);
  if (expired && b.m.startAtPending) {
    const stopped = startAtExpired(b, error);
    if (stopped) return stopped;
  }
  if (isWatchErrorRetriable(error)) {
    b.backoff('watch', isTooManyRequests(error) ? '429 at watch start' : 'connection refused at watch start');
    return b.result();
  }
  // Any other failure to start a watch ends this ListAndWatch: back off, then list again.
  if (expired) b.trace('reflector', 'expired', { rv: p.resourceVersion, during: 'watch-start', error: message(error) });
  b.effect({ kind: 'stopResync' });
  b.backoff('list-and-watch', expired ? 'watch expired' : 'watch start failed');
  return b.result();
}

function onWatchEvent(b: Builder, p: Extract<ReflectorPhase, { kind: 'Watching' }>, event: WatchEvent): StepResult {
  if (event.type === 'ERROR') {
    traceEvent(b, event, p.conn);
    return onWatchError(b, p, statusErrorFromEvent(event));
  }
  const dropped = unexpectedKind(b.ctx.config, event);
  traceEvent(b, event, p.conn, dropped);
  if (dropped) return b.result();
  const rv = event.object.metadata?.resourceVersion ?? '';
  switch (event.type) {
    case 'ADDED':
      b.effect({ kind: 'add', object: event.object });
      break;
    case 'MODIFIED':
      b.effect({ kind: 'update', object: event.object });
      break;
    case 'DELETED':
      b.effect({ kind: 'delete', object: event.object });
      break;
    case 'BOOKMARK':
      break;
  }
  b.watchedTo(rv);
  b.effect({ kind: 'updateResourceVersion', resourceVersion: rv });
  b.phase({ kind: 'Watching', conn: p.conn, start: p.start, events: p.events + 1 });
  return b.result();
}

function onWatchListEvent(b: Builder, p: Extract<ReflectorPhase, { kind: 'WatchListing' }>, event: WatchEvent): StepResult {
  if (event.type === 'ERROR') {
    traceEvent(b, event, p.conn);
    return onWatchListError(b, p, statusErrorFromEvent(event), true);
  }
  const dropped = unexpectedKind(b.ctx.config, event);
  traceEvent(b, event, p.conn, dropped);
  if (dropped) return b.result();
  const rv = event.object.metadata?.resourceVersion ?? '';
  if (event.type === 'ADDED') b.effect({ kind: 'collect', op: 'add', object: event.object });
  else if (event.type === 'MODIFIED') b.effect({ kind: 'collect', op: 'update', object: event.object });
  else if (event.type === 'DELETED') b.effect({ kind: 'collect', op: 'delete', object: event.object });
  const events = p.events + 1;
  if (event.type === 'BOOKMARK' && event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
    const firstSync = !b.m.synced;
    b.memory({ lastSyncResourceVersionUnavailable: false, lastSyncResourceVersion: rv, synced: true, startAtPending: false, watchListSince: undefined });
    b.trace('reflector', 'initial-events-end', { conn: p.conn, rv, events, ms: b.ctx.now - p.start });
    b.effect({ kind: 'replace', items: 'collected', resourceVersion: rv });
    if (firstSync) b.trace('reflector', 'synced', { from: 'watch-list', rv });
    b.effect({ kind: 'startResync' });
    // The same stream goes on as a normal watch; client-go's watch loop starts its clock here.
    b.phase({ kind: 'Watching', conn: p.conn, start: b.ctx.now, events: 0 });
    return b.result();
  }
  b.phase({ ...p, events, resourceVersion: rv });
  return b.result();
}

/** client-go's "very short watch": closed within a second with no event. Traces it and returns its error. */
function veryShortWatch(b: Builder, p: { conn: number; events: number }, ms: number): Error | undefined {
  if (ms >= 1000 || p.events !== 0) return undefined;
  const msg = veryShortWatchMessage(b.ctx.config.name);
  b.trace('reflector', 'very-short-watch', { conn: p.conn, ms, error: msg });
  return new Error(msg);
}

function onWatchClosed(b: Builder, p: Extract<ReflectorPhase, { kind: 'Watching' }>, input: Extract<ReflectorInput, { kind: 'closed' }>): StepResult {
  const ms = b.ctx.now - p.start;
  const veryShort = veryShortWatch(b, p, ms);
  if (veryShort) return onWatchError(b, p, veryShort, true);
  b.trace('reflector', 'watch-close', { conn: p.conn, reason: input.reason, events: p.events, ms, ...(input.error ? { error: message(input.error) } : {}) });
  b.startWatch();
  return b.result();
}

function onWatchListClosed(b: Builder, p: Extract<ReflectorPhase, { kind: 'WatchListing' }>, input: Extract<ReflectorInput, { kind: 'closed' }>): StepResult {
  const ms = b.ctx.now - p.start;
  const veryShort = veryShortWatch(b, p, ms);
  if (veryShort) return onWatchListError(b, p, veryShort, false);
  // Ended before the initial-events-end bookmark: simply try again.
  b.trace('reflector', 'watch-close', { conn: p.conn, reason: input.reason, events: p.events, ms, initialEventsEnd: false });
  b.startWatchList();
  return b.result();
}

/** client-go's watch() switch on the error that ended a watch. */
function onWatchError(b: Builder, p: Extract<ReflectorPhase, { kind: 'Watching' }>, error: unknown, veryShort = false): StepResult {
  const ms = b.ctx.now - p.start;
  if (!veryShort) b.effect({ kind: 'closeWatch', conn: p.conn });
  b.trace('reflector', 'watch-close', { conn: p.conn, reason: veryShort ? 'very-short-watch' : 'error', events: p.events, ms, error: message(error) });
  if (isExpired(error)) {
    b.effect({ kind: 'count', stat: 'expired' });
    if (b.m.startAtPending) {
      const stopped = startAtExpired(b, error);
      if (stopped) return stopped;
    }
    // Not marked unavailable: a LIST at the last RV returns data at least that fresh, so try that first.
    b.trace('reflector', 'expired', { conn: p.conn, rv: b.m.lastSyncResourceVersion, during: 'watch', error: message(error) });
    b.effect({ kind: 'stopResync' });
    b.backoff('list-and-watch', 'watch expired');
    return b.result();
  }
  if (isTooManyRequests(error)) {
    b.backoff('watch', '429 during watch');
    return b.result();
  }
  b.trace('reflector', 'watch-error', { conn: p.conn, error: `${b.ctx.config.name}: watch ended with: ${message(error)}` });
  b.effect({ kind: 'stopResync' });
  b.backoff('list-and-watch', veryShort ? 'very short watch' : 'watch error');
  return b.result();
}

/** client-go's watchList error handling, for errors while the initial events stream. */
function onWatchListError(b: Builder, p: Extract<ReflectorPhase, { kind: 'WatchListing' }>, error: unknown, close: boolean): StepResult {
  if (close) b.effect({ kind: 'closeWatch', conn: p.conn });
  b.trace('reflector', 'watch-close', { conn: p.conn, reason: close ? 'error' : 'very-short-watch', events: p.events, ms: b.ctx.now - p.start, error: message(error) });
  const expired = isExpired(error);
  if (expired) b.effect({ kind: 'count', stat: 'expired' });
  return watchListFailure(b, error, expired);
}

function watchListFailure(b: Builder, error: unknown, expired: boolean): StepResult {
  if (isWatchErrorRetriable(error)) {
    b.backoff('watch-list', isTooManyRequests(error) ? '429 during watch-list' : 'connection refused at watch-list start');
    return b.result();
  }
  if (expired || isTooLargeResourceVersion(error)) {
    b.memory({ lastSyncResourceVersionUnavailable: true });
    if (expired) b.trace('reflector', 'expired', { during: 'watch-list', error: message(error) });
    b.startWatchList();
    return b.result();
  }
  b.memory({ watchListSince: undefined });
  b.trace('reflector', 'fallback', {
    to: 'list',
    error: `The watchlist request ended with an error, falling back to the standard LIST/WATCH semantics because making progress is better than deadlocking, err = ${message(error)}`,
  });
  b.list(undefined, false, 'watch-list fallback');
  return b.result();
}

/**
 * A watch-list sync has gone the whole bound without its initial-events-end bookmark. client-go 1.35's watchList
 * (tools/cache/reflector.go) leaves its loop only on that bookmark: a stream that ends without it is re-opened, an
 * open one is read on, with no error and no fallback, so an informer behind a proxy that drops bookmarks never syncs.
 * kwatch says so once per sync attempt; with `fallbackWithoutInitialEventsEnd` it does what a fixed client would:
 * closes the stream and LISTs, then WATCHes, and keeps LIST+WATCH for the rest of the run.
 */
function onInitialEventsOverdue(b: Builder, p: ReflectorPhase): StepResult {
  const since = b.m.watchListSince;
  if (since === undefined) return b.result();
  const fallback = b.ctx.config.fallbackWithoutInitialEventsEnd;
  const conn = p.kind === 'WatchListing' || p.kind === 'StartingWatch' ? p.conn : undefined;
  b.memory({ watchListSince: undefined });
  b.trace('reflector', 'no-initial-events-end', {
    ...(conn !== undefined ? { conn } : {}),
    ms: b.ctx.now - since,
    ...(p.kind === 'WatchListing' ? { events: p.events } : {}),
    message: noInitialEventsEndMessage(b.ctx.config.initialEventsEndTimeoutMs),
    fallback,
  });
  if (!fallback) return b.result();
  if (p.kind === 'WatchListing') b.effect({ kind: 'closeWatch', conn: p.conn });
  // A watch still being opened is closed by the driver when it arrives (the phase has moved on); a backoff's timer is cancelled.
  if (p.kind === 'BackingOff') b.effect({ kind: 'cancelSleep' });
  b.memory({ watchListDropped: true });
  b.effect({ kind: 'resetCollected' });
  b.trace('reflector', 'fallback', { to: 'list', reason: 'no initial-events-end' });
  b.list(undefined, false, 'no initial-events-end');
  return b.result();
}

/** The startAt RV is gone: stop (the command explains it) or fall back to a normal relist. */
function startAtExpired(b: Builder, error: unknown): StepResult | undefined {
  if (b.ctx.config.startAt?.onExpired !== 'stop') return undefined;
  b.trace('reflector', 'expired', { rv: b.ctx.config.startAt.resourceVersion, during: 'startAt', error: message(error) });
  return b.stop(error instanceof Error ? error : new Error(String(error)));
}

function unexpectedKind(config: ReflectorConfig, event: WatchEvent): string | undefined {
  if (!config.expectedKind) return undefined;
  const kind = event.object.kind;
  if (kind === config.expectedKind) return undefined;
  return `${config.name}: expected kind ${config.expectedKind}, but watch event object had kind ${kind ?? '<none>'}`;
}

function traceEvent(b: Builder, event: WatchEvent, conn: number, dropped?: string): void {
  if (!b.ctx.tracing) return;
  const detail: Record<string, unknown> = {
    type: event.type,
    key: event.type === 'ERROR' ? undefined : metaNamespaceKey(event.object),
    rv: event.object.metadata?.resourceVersion,
    bytes: event.bytes,
    conn,
  };
  if (event.type === 'ERROR') detail.error = (event.object as unknown as Partial<Status>).message;
  if (dropped) detail.dropped = dropped;
  if (event.local) detail.local = true;
  b.effects.push({ kind: 'trace', stage: 'watch', op: event.type, detail });
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Accumulates one step's next state and effects. */
class Builder {
  m: ReflectorMemory;
  p: ReflectorPhase;
  readonly effects: ReflectorEffect[] = [];

  constructor(
    state: ReflectorState,
    readonly ctx: StepContext,
  ) {
    this.m = state.memory;
    this.p = state.phase;
  }

  memory(patch: Partial<ReflectorMemory>): void {
    this.m = { ...this.m, ...patch };
  }

  /**
   * A watch event reached `rv`: memory({ lastSyncResourceVersion: rv, startAtPending: false }), spelled out
   * because it runs once per event, where merging two objects cost as much as the rest of the step.
   */
  watchedTo(rv: string): void {
    const m = this.m;
    this.m = {
      lastSyncResourceVersion: rv,
      lastSyncResourceVersionUnavailable: m.lastSyncResourceVersionUnavailable,
      paginatedResult: m.paginatedResult,
      synced: m.synced,
      listed: m.listed,
      conn: m.conn,
      backoff: m.backoff,
      retryAfterRetries: m.retryAfterRetries,
      startAtPending: false,
      watchListSince: m.watchListSince,
      watchListDropped: m.watchListDropped,
    };
  }

  phase(p: ReflectorPhase): void {
    this.p = p;
  }

  effect(e: ReflectorEffect): void {
    this.effects.push(e);
  }

  trace(stage: Stage, op: string, detail: Record<string, unknown>): void {
    if (this.ctx.tracing) this.effects.push({ kind: 'trace', stage, op, detail });
  }

  result(): StepResult {
    return { state: { phase: this.p, memory: this.m }, effects: this.effects };
  }

  /** client-go's ListAndWatch: a watch-list when enabled, else a list. */
  listAndWatch(reason: string): void {
    if (this.ctx.config.useWatchList && !this.m.watchListDropped) {
      // A watch-list after a sync replaces the whole store again, as a LIST does: the same relist record (and count).
      if (this.m.synced) {
        this.effects.push({ kind: 'count', stat: 'relists' });
        this.trace('reflector', 'relist', { reason, rv: rewatchResourceVersion(this.m), watchList: true });
      }
      this.startWatchList();
    } else this.list(undefined, false, reason);
  }

  list(pageSize: number | undefined, unavailableRetry: boolean, reason: string): void {
    const rv = relistResourceVersion(this.m);
    const size = pageSize ?? listPageSize(this.ctx.config, this.m, rv);
    const options: ListOptions = rv === '' ? {} : { resourceVersion: rv };
    if (this.m.listed) this.trace('reflector', 'relist', { reason, rv });
    this.trace('reflector', 'list-start', { rv, limit: size || undefined });
    this.memory({ listed: true });
    this.phase({ kind: 'Listing', resourceVersion: rv, pageSize: size, unavailableRetry });
    this.effects.push({ kind: 'list', options, pageSize: size });
  }

  private timeoutSeconds(): number {
    const min = this.ctx.config.minWatchTimeoutSeconds;
    return Math.floor(min * (this.ctx.random() + 1));
  }

  startWatch(): void {
    const conn = this.m.conn + 1;
    const rv = this.m.lastSyncResourceVersion;
    const timeoutSeconds = this.timeoutSeconds();
    const options: ListOptions = { ...(rv === '' ? {} : { resourceVersion: rv }), timeoutSeconds, allowWatchBookmarks: true };
    this.memory({ conn });
    this.trace('reflector', 'watch-start', { conn, rv, timeoutSeconds });
    this.phase({ kind: 'StartingWatch', conn, resourceVersion: rv, watchList: false, start: this.ctx.now });
    this.effects.push({ kind: 'watch', conn, options });
  }

  startWatchList(): void {
    const conn = this.m.conn + 1;
    const rv = rewatchResourceVersion(this.m);
    const timeoutSeconds = this.timeoutSeconds();
    const options: ListOptions = {
      ...(rv === '' ? {} : { resourceVersion: rv }),
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds,
    };
    this.memory({ conn });
    const bound = this.ctx.config.initialEventsEndTimeoutMs;
    if (this.m.watchListSince === undefined && bound > 0) {
      this.memory({ watchListSince: this.ctx.now });
      this.effects.push({ kind: 'awaitInitialEventsEnd', ms: bound });
    }
    this.trace('reflector', 'watch-start', { conn, rv, timeoutSeconds, watchList: true });
    this.phase({ kind: 'StartingWatch', conn, resourceVersion: rv, watchList: true, start: this.ctx.now });
    this.effects.push({ kind: 'resetCollected' }, { kind: 'watch', conn, options });
  }

  backoff(next: ResumeKind, reason: string): void {
    const r = nextBackoff(this.ctx.config.backoff, this.m.backoff, this.ctx.now, this.ctx.random());
    this.memory({ backoff: r.state });
    this.trace('reflector', 'backoff', { ms: Math.round(r.ms), next, reason });
    this.phase({ kind: 'BackingOff', ms: r.ms, next, reason });
    this.effects.push({ kind: 'sleep', ms: r.ms, reason: 'backoff' });
  }

  stop(error?: Error): StepResult {
    const p = this.p;
    if (p.kind === 'Watching' || p.kind === 'WatchListing') this.effects.push({ kind: 'closeWatch', conn: p.conn });
    this.effects.push({ kind: 'stopResync' });
    this.trace('reflector', 'stopped', error ? { error: error.message } : {});
    this.phase(error ? { kind: 'Stopped', error } : { kind: 'Stopped' });
    this.effects.push(error ? { kind: 'done', error } : { kind: 'done' });
    return this.result();
  }
}

/** A refused request's answer size on its reflector record: a run without http records (a replay) counts it there. */
function bytesOf(error: unknown): { bytes?: number } {
  const bytes = answerBytes(error);
  return bytes === undefined ? {} : { bytes };
}
