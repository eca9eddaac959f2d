// Fault injection: dropped and cut watches, forced compaction, failing and delayed requests — driven in-process or over the control endpoint.
import type { SimApiError } from './api.js';
import { internalError, serviceUnavailable, tooManyRequests } from './status.js';
import { SimApiError as ApiError } from './api.js';

/** How a request is classified for fault filters and the request log. */
export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'discovery' | 'other';

/** Which requests a rule applies to; an empty filter matches every API request (the control endpoint is never affected). */
export interface RequestFilter {
  verb?: RequestVerb | RequestVerb[];
  /** Substring the request path (without query) must contain, e.g. "/pods". */
  path?: string;
}

export interface FailRule extends RequestFilter {
  /** How many matching requests fail (default 1). */
  count?: number;
  /** 429, 500, 503 or 504 (other codes get a generic Status). */
  code: number;
  /** Sets details.retryAfterSeconds and the Retry-After header (429 defaults to 1). */
  retryAfterSeconds?: number;
}

export interface DelayRule extends RequestFilter {
  ms: number;
  /** How many matching requests are delayed; unset = until reset. */
  count?: number;
}

/** Faults active from startup (the `--fault` flags). */
export interface FaultOptions {
  /** End each watch N ms after it opened (each watch on its own clock). */
  dropWatchesEveryMs?: number;
  /** End each watch after it has sent N events. */
  dropWatchesEveryEvents?: number;
  fail?: FailRule[];
  delay?: DelayRule[];
  /** Cut the next N watch events mid-line (half a line, then the socket is destroyed). */
  cutWatchEvents?: number;
  /** Send a watch-list's initial events but never its k8s.io/initial-events-end bookmark, as a proxy that drops bookmarks does. */
  dropInitialEventsEnd?: boolean;
}

/** What the controller acts on; provided by the server. */
export interface FaultTargets {
  /** Closes every open watch: "end" finishes the response cleanly, "reset" destroys the socket. Returns how many. */
  dropWatches(mode: 'end' | 'reset'): number;
  compact(): void;
}

/** An open watch as the drop timers see it: closing it ends its response ("end") or destroys its socket ("reset"). */
export interface DroppableWatch {
  close(mode: 'end' | 'reset'): void;
}

export interface FaultState {
  dropWatchesEveryMs: number | null;
  dropWatchesEveryEvents: number | null;
  fail: Required<FailRule>[];
  delay: DelayRule[];
  cutWatchEvents: number;
  dropInitialEventsEnd: boolean;
  dropped: number;
  failed: number;
  cut: number;
}

/**
 * The control endpoint, `POST /_kwatch/faults`, takes one JSON object; present keys are applied in this order and the
 * answer is `GET /_kwatch/state`'s `faults` object:
 * ```
 * { "reset": true,                                        // clear every fault first
 *   "dropWatches": true | "end" | "reset",                // close every open watch now (true = "end")
 *   "dropWatchesEvery": { "ms": 5000 } | { "events": 100 } | null,   // each watch ends 5 s after it opened / after 100 events (null clears)
 *   "compact": true,                                      // compact the history now
 *   "fail": { "code": 429, "count": 3, "retryAfterSeconds": 1, "verb": "watch", "path": "/pods" } | [ … ],
 *   "delay": { "ms": 200, "count": 5, "verb": ["list", "get"] } | [ … ],
 *   "cutWatch": true | { "count": 2 },                    // the next N watch events are cut mid-line
 *   "dropInitialEventsEnd": true | false }                // watch-lists never get their initial-events-end bookmark
 * ```
 */
export interface FaultRequest {
  reset?: boolean;
  dropWatches?: boolean | 'end' | 'reset';
  dropWatchesEvery?: { ms?: number; events?: number } | null;
  compact?: boolean;
  fail?: FailRule | FailRule[];
  delay?: DelayRule | DelayRule[];
  cutWatch?: boolean | { count?: number };
  dropInitialEventsEnd?: boolean;
}

export class FaultController {
  private targets: FaultTargets | undefined;
  private dropEveryMs: number | null = null;
  private dropEveryEvents: number | null = null;
  /** Each open watch's opening time and its pending drop (set while dropWatchesEvery.ms is on). */
  private readonly openWatches = new Map<DroppableWatch, { openedAt: number; timer?: NodeJS.Timeout }>();
  private failRules: Required<FailRule>[] = [];
  private delayRules: DelayRule[] = [];
  private cuts = 0;
  private dropEnd = false;
  private stats = { dropped: 0, failed: 0, cut: 0 };

  constructor(initial: FaultOptions = {}) {
    this.configure(initial);
  }

  /** Connects the controller to a running server (done by startSimServer). */
  attach(targets: FaultTargets): void {
    this.targets = targets;
    this.rescheduleDrops();
  }

  /** Stops timers (server shutdown). */
  detach(): void {
    this.targets = undefined;
    this.rescheduleDrops();
  }

  /** The server tells of every watch it opens (and closes), so a periodic drop can time each one from its own start. */
  watchOpened(watch: DroppableWatch): void {
    const entry = { openedAt: Date.now() };
    this.openWatches.set(watch, entry);
    this.scheduleDrop(watch, entry);
  }

  watchClosed(watch: DroppableWatch): void {
    clearTimeout(this.openWatches.get(watch)?.timer);
    this.openWatches.delete(watch);
  }

  configure(o: FaultOptions): void {
    if (o.dropWatchesEveryMs) this.dropWatchesEvery({ ms: o.dropWatchesEveryMs });
    if (o.dropWatchesEveryEvents) this.dropWatchesEvery({ events: o.dropWatchesEveryEvents });
    for (const r of o.fail ?? []) this.failNext(r);
    for (const r of o.delay ?? []) this.delay(r);
    if (o.cutWatchEvents) this.cutNextWatchEvents(o.cutWatchEvents);
    if (o.dropInitialEventsEnd) this.dropEnd = true;
  }

  /** Closes every open watch now; returns how many were closed. */
  dropWatches(mode: 'end' | 'reset' = 'end'): number {
    const n = this.targets?.dropWatches(mode) ?? 0;
    this.stats.dropped += n;
    return n;
  }

  /**
   * Ends each watch every `ms` of its own life (at ms, 2·ms, … after it opened), and/or after `events` events; null
   * clears both. Each watch keeps its own clock rather than one phase for all: with one phase, a watch that opened just
   * before the tick was dropped before any event, and client-go (as kwatch) relists after such a "very short watch".
   */
  dropWatchesEvery(o: { ms?: number; events?: number } | null): void {
    if (o === null) {
      this.dropEveryMs = null;
      this.dropEveryEvents = null;
    } else {
      if (o.events !== undefined) this.dropEveryEvents = o.events > 0 ? o.events : null;
      if (o.ms !== undefined) this.dropEveryMs = o.ms > 0 ? o.ms : null;
    }
    this.rescheduleDrops();
  }

  private rescheduleDrops(): void {
    for (const [watch, entry] of this.openWatches) this.scheduleDrop(watch, entry);
  }

  /** The watch's next multiple of dropEveryMs since it opened (none while detached or off). */
  private scheduleDrop(watch: DroppableWatch, entry: { openedAt: number; timer?: NodeJS.Timeout }): void {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    const every = this.dropEveryMs;
    if (!every || !this.targets) return;
    const age = Math.max(0, Date.now() - entry.openedAt);
    entry.timer = setTimeout(() => {
      this.watchClosed(watch);
      this.stats.dropped++;
      watch.close('end');
    }, every - (age % every));
    entry.timer.unref();
  }

  /** Compacts the store's history now (older resourceVersions answer 410 from here on). */
  compact(): void { this.targets?.compact(); }

  /** The next `count` matching requests fail with `code`. */
  failNext(rule: FailRule): void {
    this.failRules.push({ count: rule.count ?? 1, code: rule.code, retryAfterSeconds: rule.retryAfterSeconds ?? (rule.code === 429 ? 1 : 0), verb: rule.verb ?? [], path: rule.path ?? '' });
  }

  /** Delays matching responses by `ms`. */
  delay(rule: DelayRule): void { this.delayRules.push({ ...rule }); }

  /** The next `count` watch events (on any watch) are cut mid-line and their connection destroyed. */
  cutNextWatchEvents(count = 1): void { this.cuts += count; }

  reset(): void {
    this.dropWatchesEvery(null);
    this.failRules = [];
    this.delayRules = [];
    this.cuts = 0;
    this.dropEnd = false;
  }

  /** Applies a control-endpoint request (see FaultRequest). */
  apply(req: FaultRequest): FaultState {
    if (req.reset) this.reset();
    if (req.dropWatches) this.dropWatches(req.dropWatches === 'reset' ? 'reset' : 'end');
    if (req.dropWatchesEvery !== undefined) this.dropWatchesEvery(req.dropWatchesEvery);
    if (req.compact) this.compact();
    for (const r of req.fail === undefined ? [] : Array.isArray(req.fail) ? req.fail : [req.fail]) this.failNext(r);
    for (const r of req.delay === undefined ? [] : Array.isArray(req.delay) ? req.delay : [req.delay]) this.delay(r);
    if (req.cutWatch) this.cutNextWatchEvents(req.cutWatch === true ? 1 : req.cutWatch.count ?? 1);
    if (req.dropInitialEventsEnd !== undefined) this.dropEnd = req.dropInitialEventsEnd === true;
    return this.state();
  }

  state(): FaultState {
    return {
      dropWatchesEveryMs: this.dropEveryMs, dropWatchesEveryEvents: this.dropEveryEvents,
      fail: this.failRules.map((r) => ({ ...r })), delay: this.delayRules.map((r) => ({ ...r })),
      cutWatchEvents: this.cuts, dropInitialEventsEnd: this.dropEnd, ...this.stats,
    };
  }

  // ---- hooks used by the server ----

  /** Consumes the rules matching a request: the delay to apply and the error to answer with, if any. */
  onRequest(verb: RequestVerb, path: string): { delayMs: number; error?: SimApiError } {
    let delayMs = 0;
    for (const r of this.delayRules) {
      if (!matches(r, verb, path)) continue;
      delayMs = Math.max(delayMs, r.ms);
      if (r.count !== undefined) r.count--;
    }
    this.delayRules = this.delayRules.filter((r) => r.count === undefined || r.count > 0);
    const rule = this.failRules.find((r) => matches(r, verb, path));
    if (!rule) return { delayMs };
    rule.count--;
    this.failRules = this.failRules.filter((r) => r.count > 0);
    this.stats.failed++;
    return { delayMs, error: failure(rule) };
  }

  /** Whether the next watch event must be cut mid-line (consumes one cut). */
  takeCut(): boolean {
    if (this.cuts <= 0) return false;
    this.cuts--;
    this.stats.cut++;
    return true;
  }

  /** Whether watch-lists must go without their initial-events-end bookmark. */
  get dropsInitialEventsEnd(): boolean { return this.dropEnd; }

  /** Per-watch event budget before the server ends it, if set. */
  get watchEventLimit(): number | null { return this.dropEveryEvents; }

  noteDropped(): void { this.stats.dropped++; }
}

function matches(f: RequestFilter, verb: RequestVerb, path: string): boolean {
  const verbs = f.verb === undefined ? [] : Array.isArray(f.verb) ? f.verb : [f.verb];
  if (verbs.length && !verbs.includes(verb)) return false;
  return !f.path || path.includes(f.path);
}

function failure(r: Required<FailRule>): SimApiError {
  const retry = r.retryAfterSeconds;
  switch (r.code) {
    case 429: return tooManyRequests('Too many requests, please try again later.', retry || 1);
    case 500: return internalError('injected fault', retry || undefined);
    case 503: return serviceUnavailable('the server is currently unable to handle the request (injected fault)', retry || undefined);
    case 504: return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: retry ? { retryAfterSeconds: retry } : {}, code: 504 });
    default: return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `injected fault (HTTP ${r.code})`, reason: 'Unknown', code: r.code, ...(retry ? { details: { retryAfterSeconds: retry } } : {}) });
  }
}

/**
 * Parses `--fault` style specs, comma-separated:
 * `drop-watches-every=5s`, `drop-watches-every=100events`, `fail=429x3@watch` (code, optional xCOUNT, optional @verb),
 * `fail=503x2@list:/pods` (…and :path substring), `delay=200ms[@verb]`, `cut-watch=1`, `drop-initial-events-end`.
 */
export function parseFaultSpec(spec: string): FaultOptions {
  const out: FaultOptions = {};
  for (const item of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    switch (key) {
      case 'drop-watches-every': {
        const ev = /^(\d+)\s*events?$/.exec(value);
        if (ev) out.dropWatchesEveryEvents = Number(ev[1]);
        else out.dropWatchesEveryMs = parseDuration(value, item);
        break;
      }
      case 'fail': {
        const m = /^(\d{3})(?:x(\d+))?(?:@([a-z]+))?(?::(.+))?$/.exec(value);
        if (!m) throw new Error(`invalid fault "${item}": use fail=CODE[xCOUNT][@VERB][:PATH]`);
        (out.fail ??= []).push({ code: Number(m[1]), count: m[2] ? Number(m[2]) : 1, ...(m[3] ? { verb: m[3] as RequestVerb } : {}), ...(m[4] ? { path: m[4] } : {}) });
        break;
      }
      case 'delay': {
        const [d, verb] = value.split('@');
        (out.delay ??= []).push({ ms: parseDuration(d, item), ...(verb ? { verb: verb as RequestVerb } : {}) });
        break;
      }
      case 'cut-watch':
        out.cutWatchEvents = value ? Number(value) : 1;
        break;
      case 'drop-initial-events-end':
        out.dropInitialEventsEnd = true;
        break;
      default:
        throw new Error(`unknown fault "${key}": use drop-watches-every, fail, delay, cut-watch or drop-initial-events-end`);
    }
  }
  return out;
}

function parseDuration(v: string, item: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v.trim());
  if (!m) throw new Error(`invalid duration in fault "${item}": use e.g. 500ms, 5s, 1m`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}
