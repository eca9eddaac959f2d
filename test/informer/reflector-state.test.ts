import { describe, expect, it } from 'vitest';
import { REFLECTOR_BACKOFF } from '../../src/informer/backoff.js';
import { WatchDecodeError } from '../../src/informer/errors.js';
import { fakeErrors } from '../../src/informer/fake-lister-watcher.js';
import {
  initialReflectorState,
  step,
  noInitialEventsEndMessage,
  veryShortWatchMessage,
  type ReflectorConfig,
  type ReflectorEffect,
  type ReflectorInput,
  type ReflectorState,
} from '../../src/informer/reflector-state.js';
import type { KubeObject, WatchEvent } from '../../src/informer/types.js';

const config = (o: Partial<ReflectorConfig> = {}): ReflectorConfig => ({
  name: 'pods',
  useWatchList: false,
  initialEventsEndTimeoutMs: 0,
  fallbackWithoutInitialEventsEnd: false,
  minWatchTimeoutSeconds: 300,
  backoff: REFLECTOR_BACKOFF,
  ...o,
});
const pod = (name: string, rv: string, kind = 'Pod'): KubeObject => ({ kind, apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: rv } });
const ev = (type: WatchEvent['type'], obj: KubeObject): WatchEvent => ({ type, object: obj });
const bookmark = (rv: string, end = false): WatchEvent => ({
  type: 'BOOKMARK',
  object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: rv, ...(end ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) } },
});

/** Drives the pure step function through inputs at given times; keeps every effect. */
class Machine {
  state: ReflectorState;
  effects: ReflectorEffect[] = [];
  now = 0;
  constructor(
    readonly cfg: ReflectorConfig = config(),
    public random = 0,
    readonly tracing = true,
  ) {
    this.state = initialReflectorState(cfg, 0);
  }
  send(input: ReflectorInput, at = this.now): ReflectorEffect[] {
    this.now = at;
    const r = step(this.state, input, { config: this.cfg, now: at, random: () => this.random, tracing: this.tracing });
    this.state = r.state;
    this.effects.push(...r.effects);
    return r.effects;
  }
  get phase() {
    return this.state.phase;
  }
  get conn() {
    return this.state.memory.conn;
  }
  /** Runs start → list at "0" → listed at rv → watch opened. */
  synced(rv = '100', items: KubeObject[] = []): this {
    this.send({ kind: 'start' });
    this.send({ kind: 'listed', items, resourceVersion: rv, paginatedResult: false, pages: 1, ms: 1 });
    this.send({ kind: 'watchOpened', conn: this.conn });
    return this;
  }
}

const io = (effects: ReflectorEffect[]) => effects.filter((e) => e.kind !== 'trace');
const traces = (effects: ReflectorEffect[], op?: string): Record<string, unknown>[] =>
  effects.flatMap((e) => (e.kind === 'trace' && (!op || e.op === op) ? [{ op: e.op, ...e.detail }] : []));

describe('reflector step: list then watch', () => {
  it('first lists at resourceVersion "0" with a page size of 500', () => {
    const m = new Machine();
    expect(io(m.send({ kind: 'start' }))).toEqual([{ kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '0' });
  });

  it('replaces the store with the list, then watches from its resourceVersion with bookmarks and a random timeout in [300, 600)', () => {
    const items = [pod('a', '7')];
    const m = new Machine(config(), 0.999);
    m.send({ kind: 'start' });
    const effects = io(m.send({ kind: 'listed', items, resourceVersion: '42', paginatedResult: false, pages: 1, ms: 3 }));
    expect(effects).toEqual([
      { kind: 'replace', items, resourceVersion: '42' },
      { kind: 'startResync' },
      { kind: 'watch', conn: 1, options: { resourceVersion: '42', timeoutSeconds: 599, allowWatchBookmarks: true } },
    ]);
    expect(m.state.memory).toMatchObject({ lastSyncResourceVersion: '42', synced: true });
    m.random = 0;
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    expect(io(m.effects).at(-1)).toMatchObject({ kind: 'watch', options: { timeoutSeconds: 300 } });
  });

  it('applies ADDED, MODIFIED and DELETED to the store and advances the resourceVersion on every event', () => {
    const m = new Machine().synced('100');
    const a = pod('a', '101');
    expect(io(m.send({ kind: 'event', conn: 1, event: ev('ADDED', a) }))).toEqual([
      { kind: 'add', object: a },
      { kind: 'updateResourceVersion', resourceVersion: '101' },
    ]);
    expect(io(m.send({ kind: 'event', conn: 1, event: ev('MODIFIED', pod('a', '102')) }))[0]).toMatchObject({ kind: 'update' });
    expect(io(m.send({ kind: 'event', conn: 1, event: ev('DELETED', pod('a', '103')) }))[0]).toMatchObject({ kind: 'delete' });
    expect(m.state.memory.lastSyncResourceVersion).toBe('103');
  });

  it('a BOOKMARK advances the resourceVersion without touching the store', () => {
    const m = new Machine().synced('100');
    expect(io(m.send({ kind: 'event', conn: 1, event: bookmark('250') }))).toEqual([{ kind: 'updateResourceVersion', resourceVersion: '250' }]);
    expect(m.state.memory.lastSyncResourceVersion).toBe('250');
    expect(m.phase).toMatchObject({ kind: 'Watching', events: 1 });
  });

  it('drops an event of an unexpected kind with a trace, without advancing the resourceVersion', () => {
    const m = new Machine(config({ expectedKind: 'Pod' })).synced('100');
    const effects = m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('x', '101', 'Node')) });
    expect(io(effects)).toEqual([]);
    expect(traces(effects)[0]).toMatchObject({ op: 'ADDED', dropped: 'pods: expected kind Pod, but watch event object had kind Node' });
    expect(m.state.memory.lastSyncResourceVersion).toBe('100');
  });

  it('a normal close re-watches from the last resourceVersion at once, without relisting or backing off', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '105')) }, 10);
    const effects = io(m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 300_000));
    expect(effects).toEqual([{ kind: 'watch', conn: 2, options: { resourceVersion: '105', timeoutSeconds: 300, allowWatchBookmarks: true } }]);
  });

  it('a stream cut mid-line is a close like EOF (client-go treats io.ErrUnexpectedEOF as the end of the watch)', () => {
    const m = new Machine().synced('100');
    const effects = m.send({ kind: 'closed', conn: 1, reason: 'stream-cut' }, 2000);
    expect(io(effects).map((e) => e.kind)).toEqual(['watch']);
    expect(traces(effects, 'watch-close')[0]).toMatchObject({ reason: 'stream-cut' });
  });

  it('a watch closed within a second with no events is an error: back off, then relist', () => {
    const m = new Machine().synced('100');
    const effects = m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 999);
    expect(io(effects)).toEqual([{ kind: 'stopResync' }, { kind: 'sleep', ms: 800, reason: 'backoff' }]);
    expect(traces(effects, 'very-short-watch')[0]).toMatchObject({ error: veryShortWatchMessage('pods') });
    expect(veryShortWatchMessage('pods')).toBe('very short watch: pods: Unexpected watch close - watch lasted less than a second and no items received');
    m.send({ kind: 'slept' }, 1799);
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '100', pageSize: 0 });
  });
});

describe('reflector step: what client-go decides at the edges', () => {
  it('a watch is very short only under a second: 999 ms with no events is, 1000 ms is not (measured from its start)', () => {
    // client-go reflector.go handleAnyWatch: `watchDuration < 1*time.Second && eventCount == 0`.
    const short = new Machine().synced('100');
    short.send({ kind: 'closed', conn: 1, reason: 'eof' }, 10_000);
    short.send({ kind: 'watchOpened', conn: 2 }, 10_000);
    short.send({ kind: 'closed', conn: 2, reason: 'eof' }, 10_999);
    expect(short.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch', reason: 'very short watch' });
    const second = new Machine().synced('100');
    second.send({ kind: 'closed', conn: 1, reason: 'eof' }, 10_000);
    second.send({ kind: 'watchOpened', conn: 2 }, 10_000);
    const effects = second.send({ kind: 'closed', conn: 2, reason: 'eof' }, 11_000);
    expect(second.phase).toMatchObject({ kind: 'StartingWatch', conn: 3, resourceVersion: '100' });
    expect(traces(effects, 'watch-close')[0]).toMatchObject({ reason: 'eof', ms: 1000, events: 0 });
  });

  it('Retry-After counts ten in a row per watch request: a watch that opens starts the count again', () => {
    // client-go's REST client retries one request at most 10 times; each new watch request has its own count.
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    for (let i = 0; i < 10; i++) {
      m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(1) });
      m.send({ kind: 'slept' });
    }
    m.send({ kind: 'watchOpened', conn: m.conn }, 6000);
    m.send({ kind: 'closed', conn: m.conn, reason: 'eof' }, 9000);
    expect(io(m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(2) }))).toEqual([{ kind: 'sleep', ms: 2000, reason: 'retry-after' }]);
  });

  it('a failure without Retry-After also starts the Retry-After count again', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    for (let i = 0; i < 9; i++) {
      m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(1) });
      m.send({ kind: 'slept' });
    }
    m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.connectionRefused() });
    m.send({ kind: 'slept' });
    m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(1) });
    m.send({ kind: 'slept' });
    expect(io(m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(1) }))).toEqual([{ kind: 'sleep', ms: 1000, reason: 'retry-after' }]);
  });

  it('a connection reset at watch start is not retriable: back off and relist (only "connection refused" and 429 re-watch)', () => {
    // client-go isWatchErrorRetriable: utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err).
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    const effects = io(m.send({ kind: 'watchFailed', conn: 2, error: fakeErrors.connectionReset() }));
    expect(effects).toEqual([{ kind: 'stopResync' }, { kind: 'sleep', ms: 800, reason: 'backoff' }]);
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
  });

  it('a 410 at watch start counts as expired, stops the resync and relists at the last resourceVersion', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    expect(io(m.send({ kind: 'watchFailed', conn: 2, error: fakeErrors.expired() }))).toEqual([{ kind: 'count', stat: 'expired' }, { kind: 'stopResync' }, { kind: 'sleep', ms: 800, reason: 'backoff' }]);
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: { resourceVersion: '100' }, pageSize: 0 }]);
  });

  it('startAt with onExpired "stop" also stops on a 410 answering the watch request itself', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'stop' } }));
    m.send({ kind: 'start' });
    const effects = io(m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.expired() }));
    expect(m.phase).toMatchObject({ kind: 'Stopped', error: { httpCode: 410 } });
    expect(effects.at(-1)).toMatchObject({ kind: 'done', error: { httpCode: 410 } });
  });

  it('a startAt watch that opens counts as synced, once', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'relist' } }));
    m.send({ kind: 'start' });
    expect(m.state.memory.synced).toBe(false);
    const effects = m.send({ kind: 'watchOpened', conn: 1 });
    expect(m.state.memory.synced).toBe(true);
    expect(traces(effects, 'synced')).toEqual([{ op: 'synced', from: 'startAt', rv: '500' }]);
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    expect(traces(m.send({ kind: 'watchOpened', conn: 2 }, 5000), 'synced')).toEqual([]);
  });

  it('only lists after the first are relists, and only the first sync is traced as synced', () => {
    const m = new Machine();
    const first = m.send({ kind: 'start' });
    expect(traces(first, 'relist')).toEqual([]);
    expect(traces(m.send({ kind: 'listed', items: [], resourceVersion: '100', paginatedResult: false, pages: 1, ms: 1 }), 'synced')).toHaveLength(1);
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 10);
    expect(traces(m.send({ kind: 'slept' }, 900), 'relist')).toEqual([{ op: 'relist', reason: 'watch expired', rv: '100' }]);
    expect(traces(m.send({ kind: 'listed', items: [], resourceVersion: '200', paginatedResult: false, pages: 1, ms: 1 }, 901), 'synced')).toEqual([]);
  });

  it('with an expected kind, events of that kind are applied', () => {
    const m = new Machine(config({ expectedKind: 'Pod' })).synced('100');
    const a = pod('a', '101');
    expect(io(m.send({ kind: 'event', conn: 1, event: ev('ADDED', a) }))).toEqual([{ kind: 'add', object: a }, { kind: 'updateResourceVersion', resourceVersion: '101' }]);
  });

  it('an ERROR event whose object is not a Status ends the watch as a 500, not a 410', () => {
    const m = new Machine().synced('100');
    const effects = m.send({ kind: 'event', conn: 1, event: ev('ERROR', pod('x', '1')) });
    expect(io(effects).some((e) => e.kind === 'count')).toBe(false);
    expect(String(traces(effects, 'watch-error')[0].error)).toMatch(/^pods: watch ended with: unexpected error object in watch ERROR event: \{"kind":"Pod"/);
  });

  it('ignores every input from a connection that is no longer the current one', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    const stale: ReflectorInput[] = [
      { kind: 'watchOpened', conn: 1 },
      { kind: 'watchFailed', conn: 1, error: fakeErrors.forbidden() },
      { kind: 'event', conn: 1, event: ev('ADDED', pod('a', '7')) },
      { kind: 'closed', conn: 1, reason: 'eof' },
      { kind: 'streamError', conn: 1, error: fakeErrors.internalError() },
      { kind: 'watchdog', conn: 1, silentMs: 99_000 },
      { kind: 'listed', items: [], resourceVersion: '1', paginatedResult: false, pages: 1, ms: 1 },
      { kind: 'listFailed', error: fakeErrors.expired() },
      { kind: 'slept' },
    ];
    const before = m.state;
    for (const input of stale) expect(m.send(input, 5001)).toEqual([]);
    expect(m.state).toEqual(before);
    m.send({ kind: 'watchOpened', conn: 2 }, 5001);
    const watching = m.state;
    for (const input of stale) expect(m.send(input, 5002)).toEqual([]);
    expect(m.state).toEqual(watching);
  });
});

describe('reflector step: errors', () => {
  it('an ERROR 410 backs off, then relists at the last resourceVersion with no limit', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: bookmark('150') }, 10);
    const effects = m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 20);
    expect(io(effects)).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'count', stat: 'expired' }, { kind: 'stopResync' }, { kind: 'sleep', ms: 800, reason: 'backoff' }]);
    expect(m.state.memory.lastSyncResourceVersionUnavailable).toBe(false);
    expect(io(m.send({ kind: 'slept' }, 1000))).toEqual([{ kind: 'list', options: { resourceVersion: '150' }, pageSize: 0 }]);
  });

  it('a relist at the last resourceVersion that is expired too is retried at once with resourceVersion ""', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 10);
    m.send({ kind: 'slept' }, 900);
    const effects = io(m.send({ kind: 'listFailed', error: fakeErrors.expired() }, 901));
    expect(effects).toEqual([{ kind: 'count', stat: 'expired' }, { kind: 'list', options: {}, pageSize: 0 }]);
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '', unavailableRetry: true });
    m.send({ kind: 'listed', items: [], resourceVersion: '900', paginatedResult: false, pages: 1, ms: 1 }, 902);
    expect(m.state.memory).toMatchObject({ lastSyncResourceVersion: '900', lastSyncResourceVersionUnavailable: false });
  });

  it('a too-large resourceVersion on a relist is retried at once with resourceVersion ""', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 10);
    m.send({ kind: 'slept' }, 900);
    expect(io(m.send({ kind: 'listFailed', error: fakeErrors.tooLargeResourceVersion() }))).toEqual([{ kind: 'list', options: {}, pageSize: 0 }]);
  });

  it('when the "" retry fails too it backs off and the next relist is paged at 500 from ""', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 10);
    m.send({ kind: 'slept' }, 900);
    m.send({ kind: 'listFailed', error: fakeErrors.expired() });
    expect(io(m.send({ kind: 'listFailed', error: fakeErrors.expired() })).at(-1)).toMatchObject({ kind: 'sleep', reason: 'backoff' });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: {}, pageSize: 500 }]);
  });

  it('a 429 ERROR event backs off and re-watches without relisting', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: fakeErrors.tooManyRequestsEvent() }, 10);
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch' });
    expect(io(m.send({ kind: 'slept' }))[0]).toMatchObject({ kind: 'watch', options: { resourceVersion: '100' } });
  });

  it('a 429 at watch start with Retry-After waits that long and re-watches, without using the backoff', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    const effects = m.send({ kind: 'watchFailed', conn: 2, error: fakeErrors.tooManyRequests(3) });
    expect(io(effects)).toEqual([{ kind: 'sleep', ms: 3000, reason: 'retry-after' }]);
    expect(m.state.memory.backoff.durationMs).toBe(800);
    expect(io(m.send({ kind: 'slept' }))[0]).toMatchObject({ kind: 'watch', conn: 3 });
  });

  it('a Retry-After past the backoff cap (999999999 s) waits the cap, and the trace says what was asked', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    const effects = m.send({ kind: 'watchFailed', conn: 2, error: fakeErrors.tooManyRequests(999_999_999) });
    expect(io(effects)).toEqual([{ kind: 'sleep', ms: REFLECTOR_BACKOFF.maxMs, reason: 'retry-after' }]);
    expect(traces(effects, 'retry-after')[0]).toMatchObject({ seconds: 30, requestedSeconds: 999_999_999, capped: true });
  });

  it('honours Retry-After at most 10 times in a row, then backs off', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    for (let i = 0; i < 10; i++) {
      m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(1) });
      m.send({ kind: 'slept' });
    }
    expect(io(m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooManyRequests(1) }))).toEqual([{ kind: 'sleep', ms: 800, reason: 'backoff' }]);
  });

  it('connection refused at watch start backs off and re-watches', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    m.send({ kind: 'watchFailed', conn: 2, error: fakeErrors.connectionRefused() });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch' });
  });

  it('any other watch-start failure backs off and relists', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5000);
    m.send({ kind: 'watchFailed', conn: 2, error: fakeErrors.forbidden() });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
  });

  it('an undecodable event ends the watch as client-go\'s ClientWatchDecoding error: back off, relist', () => {
    const m = new Machine().synced('100');
    const effects = m.send({ kind: 'streamError', conn: 1, error: new WatchDecodeError('unable to decode an event from the watch stream: Unexpected token', '{x') });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
    expect(traces(effects, 'watch-error')[0].error).toBe('pods: watch ended with: unable to decode an event from the watch stream: Unexpected token');
  });

  it('a list failure backs off and lists again; each backoff grows', () => {
    const m = new Machine();
    m.send({ kind: 'start' });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const e = io(m.send({ kind: 'listFailed', error: fakeErrors.internalError() }));
      waits.push((e.at(-1) as { ms: number }).ms);
      m.send({ kind: 'slept' });
    }
    expect(waits).toEqual([800, 1600, 3200, 6400]);
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '0', pageSize: 500 });
  });
});

describe('reflector step: page sizes', () => {
  it('keeps paging relists when the RV="0" list came back paginated (no watch cache)', () => {
    const m = new Machine();
    m.send({ kind: 'start' });
    m.send({ kind: 'listed', items: [], resourceVersion: '100', paginatedResult: true, pages: 3, ms: 1 });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: { resourceVersion: '100' }, pageSize: 500 }]);
  });

  it('an explicit page size is used for every list', () => {
    const m = new Machine(config({ pageSize: 50 })).synced('100');
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: { resourceVersion: '100' }, pageSize: 50 }]);
  });
});

describe('reflector step: watch-list', () => {
  const wl = () => new Machine(config({ useWatchList: true }));

  it('opens a sendInitialEvents watch, collects until the initial-events-end bookmark, then replaces and keeps the same stream', () => {
    const m = wl();
    expect(io(m.send({ kind: 'start' }))).toEqual([
      { kind: 'resetCollected' },
      { kind: 'watch', conn: 1, options: { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 } },
    ]);
    m.send({ kind: 'watchOpened', conn: 1 });
    const a = pod('a', '5');
    expect(io(m.send({ kind: 'event', conn: 1, event: ev('ADDED', a) }))).toEqual([{ kind: 'collect', op: 'add', object: a }]);
    expect(m.state.memory.lastSyncResourceVersion).toBe(''); // not advanced while collecting
    const effects = io(m.send({ kind: 'event', conn: 1, event: bookmark('9', true) }, 50));
    expect(effects).toEqual([{ kind: 'replace', items: 'collected', resourceVersion: '9' }, { kind: 'startResync' }]);
    expect(m.phase).toEqual({ kind: 'Watching', conn: 1, start: 50, events: 0 });
    expect(m.state.memory).toMatchObject({ lastSyncResourceVersion: '9', synced: true });
  });

  it('falls back to a LIST on a 4xx other than expired or 429', () => {
    const m = wl();
    m.send({ kind: 'start' });
    const effects = m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.invalid() });
    expect(io(effects)).toEqual([{ kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
    expect(String(traces(effects, 'fallback')[0].error)).toMatch(/^The watchlist request ended with an error, falling back to the standard LIST\/WATCH semantics/);
  });

  it('on an expired resourceVersion retries the watch-list at once from ""', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: bookmark('100', true) });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() });
    m.send({ kind: 'slept' });
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', watchList: true, resourceVersion: '100' });
    expect(io(m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.expired() })).at(-1)).toMatchObject({ kind: 'watch', options: { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true } });
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', watchList: true, resourceVersion: '' });
  });

  it('retries a watch-list that ended before the bookmark, and falls back to LIST if it was a very short watch', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '5')) });
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 10);
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', conn: 2, watchList: true });
    m.send({ kind: 'watchOpened', conn: 2 });
    m.send({ kind: 'closed', conn: 2, reason: 'eof' }, 20);
    expect(m.phase).toMatchObject({ kind: 'Listing' });
  });
});

describe('reflector step: watch-list, what the temporary store gets', () => {
  const wl = () => new Machine(config({ useWatchList: true, expectedKind: 'Pod' }));

  it('applies ADDED, MODIFIED and DELETED to the collected objects, drops other kinds, and ends only on a BOOKMARK marked initial-events-end', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const a = pod('a', '5');
    const a2 = pod('a', '6');
    const b = pod('b', '7');
    const endMarked = { ...pod('c', '8'), metadata: { ...pod('c', '8').metadata, annotations: { 'k8s.io/initial-events-end': 'true' } } };
    const effects: ReflectorEffect[] = [];
    for (const e of [ev('ADDED', a), ev('ADDED', b), ev('MODIFIED', a2), ev('DELETED', b), ev('ADDED', pod('n', '9', 'Node')), ev('ADDED', endMarked), bookmark('10'), { type: 'BOOKMARK', object: { ...bookmark('11', true).object, metadata: { resourceVersion: '11', annotations: { 'k8s.io/initial-events-end': 'false' } } } } as WatchEvent]) {
      effects.push(...m.send({ kind: 'event', conn: 1, event: e }));
    }
    expect(io(effects)).toEqual([
      { kind: 'collect', op: 'add', object: a },
      { kind: 'collect', op: 'add', object: b },
      { kind: 'collect', op: 'update', object: a2 },
      { kind: 'collect', op: 'delete', object: b },
      { kind: 'collect', op: 'add', object: endMarked },
    ]);
    expect(m.phase).toMatchObject({ kind: 'WatchListing', events: 7, resourceVersion: '11' });
    expect(io(m.send({ kind: 'event', conn: 1, event: bookmark('12', true) }))).toEqual([{ kind: 'replace', items: 'collected', resourceVersion: '12' }, { kind: 'startResync' }]);
  });

  it('an ERROR 410 while the initial events stream closes it, counts it and retries the watch-list at once from ""', () => {
    // client-go watchList: on isExpiredError it sets isLastSyncResourceVersionUnavailable and loops, with no backoff.
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const effects = io(m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }));
    expect(effects.slice(0, 2)).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'count', stat: 'expired' }]);
    expect(effects.at(-1)).toMatchObject({ kind: 'watch', conn: 2, options: { sendInitialEvents: true } });
    expect(m.state.memory.lastSyncResourceVersionUnavailable).toBe(true);
  });

  it('a connection refused during backoff resumes with another watch-list, not a LIST', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.connectionRefused() });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch-list' });
    expect(io(m.send({ kind: 'slept' })).at(-1)).toMatchObject({ kind: 'watch', conn: 2, options: { sendInitialEvents: true } });
  });

  it('the LIST it falls back to is retried at once from "" when its resourceVersion has expired, as any LIST', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.invalid() }); // falls back to LIST
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '0', unavailableRetry: false });
    expect(io(m.send({ kind: 'listFailed', error: fakeErrors.expired() }))).toEqual([{ kind: 'count', stat: 'expired' }, { kind: 'list', options: {}, pageSize: 500 }]);
  });

  it('after a sync, a watch-list that replaces the store again is counted as a relist; abort while streaming closes the stream', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: bookmark('100', true) });
    m.send({ kind: 'event', conn: 1, event: ev('ERROR', { kind: 'Status', code: 500, message: 'boom', metadata: {} } as unknown as KubeObject) }, 5000);
    const effects = m.send({ kind: 'slept' }, 6000);
    expect(io(effects)[0]).toEqual({ kind: 'count', stat: 'relists' });
    expect(traces(effects, 'relist')[0]).toMatchObject({ watchList: true, rv: '100' });
    m.send({ kind: 'watchOpened', conn: m.conn }, 6000);
    expect(io(m.send({ kind: 'abort' }))[0]).toEqual({ kind: 'closeWatch', conn: m.conn });
  });
});

describe('reflector step: a watch-list whose initial events never end', () => {
  const bounded = (fallback: boolean, ms = 30_000) => new Machine(config({ useWatchList: true, initialEventsEndTimeoutMs: ms, fallbackWithoutInitialEventsEnd: fallback }));

  it('says in the issue\'s words, with the bound, that client-go would wait forever', () => {
    expect(noInitialEventsEndMessage(30_000)).toBe('no initial-events-end after 30s: the server or a proxy in between drops it; client-go would wait forever');
    expect(noInitialEventsEndMessage(1_500)).toBe('no initial-events-end after 1.5s: the server or a proxy in between drops it; client-go would wait forever');
    expect(noInitialEventsEndMessage(120_000)).toMatch(/^no initial-events-end after 2m0s:/);
  });

  it('asks for the bound when the first watch-list of a sync starts, not again on its retries', () => {
    const m = bounded(false);
    expect(io(m.send({ kind: 'start' }))[0]).toEqual({ kind: 'awaitInitialEventsEnd', ms: 30_000 });
    m.send({ kind: 'watchOpened', conn: 1 });
    const retry = io(m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 5_000));
    expect(retry.some((e) => e.kind === 'awaitInitialEventsEnd')).toBe(false);
    expect(m.state.memory.watchListSince).toBe(0);
  });

  it('without --fallback records no-initial-events-end once and goes on waiting on the same stream, as client-go does', () => {
    const m = bounded(false);
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '5')) });
    const effects = m.send({ kind: 'initialEventsOverdue' }, 30_000);
    expect(traces(effects, 'no-initial-events-end')).toEqual([
      { op: 'no-initial-events-end', conn: 1, ms: 30_000, events: 1, fallback: false, message: 'no initial-events-end after 30s: the server or a proxy in between drops it; client-go would wait forever' },
    ]);
    expect(io(effects)).toEqual([]);
    expect(m.phase).toMatchObject({ kind: 'WatchListing', conn: 1 });
    // The bookmark may still come: the watch-list then syncs as usual.
    expect(io(m.send({ kind: 'event', conn: 1, event: bookmark('9', true) }, 40_000))).toEqual([{ kind: 'replace', items: 'collected', resourceVersion: '9' }, { kind: 'startResync' }]);
  });

  it('with --fallback closes the stream, lists and watches, and keeps LIST+WATCH for later relists', () => {
    const m = bounded(true);
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '5')) });
    const effects = m.send({ kind: 'initialEventsOverdue' }, 30_000);
    expect(io(effects)).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'resetCollected' }, { kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
    expect(traces(effects, 'no-initial-events-end')[0]).toMatchObject({ fallback: true });
    expect(traces(effects, 'fallback')[0]).toMatchObject({ to: 'list', reason: 'no initial-events-end' });
    m.send({ kind: 'listed', items: [], resourceVersion: '50', paginatedResult: false, pages: 1, ms: 1 });
    m.send({ kind: 'watchOpened', conn: m.conn });
    // A later relist (after an expired watch) lists again rather than trying the watch-list that never ended.
    m.send({ kind: 'event', conn: m.conn, event: fakeErrors.expiredEvent() });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: { resourceVersion: '50' }, pageSize: 0 }]);
  });

  it('a late timer after the bookmark came does nothing', () => {
    const m = bounded(true);
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: bookmark('9', true) });
    expect(m.send({ kind: 'initialEventsOverdue' }, 30_000)).toEqual([]);
    expect(m.phase).toMatchObject({ kind: 'Watching', conn: 1 });
  });

  it('with --fallback during a backoff between attempts cancels that backoff\'s timer', () => {
    const m = bounded(true);
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.connectionRefused() });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch-list' });
    const effects = io(m.send({ kind: 'initialEventsOverdue' }, 30_000));
    expect(effects[0]).toEqual({ kind: 'cancelSleep' });
    expect(m.phase).toMatchObject({ kind: 'Listing' });
  });
});

describe('reflector step: startAt, watchdog, abort', () => {
  it('startAt watches from the given resourceVersion without listing', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'stop' } }));
    expect(io(m.send({ kind: 'start' }))).toEqual([{ kind: 'startResync' }, { kind: 'watch', conn: 1, options: { resourceVersion: '500', timeoutSeconds: 300, allowWatchBookmarks: true } }]);
  });

  it('startAt with the state at that resourceVersion replaces it into the store before the watch (a persisted cache)', () => {
    const items = [{ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', resourceVersion: '480' } }];
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'stop', items } }));
    const effects = m.send({ kind: 'start' });
    expect(effects.find((e) => e.kind === 'trace')).toMatchObject({ op: 'seeded', detail: { rv: '500', items: 1 } });
    expect(io(effects)).toEqual([{ kind: 'replace', items, resourceVersion: '500' }, { kind: 'startResync' }, { kind: 'watch', conn: 1, options: { resourceVersion: '500', timeoutSeconds: 300, allowWatchBookmarks: true } }]);
  });

  it('startAt with onExpired "stop" stops with the Status error when the resourceVersion is gone', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'stop' } }));
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const effects = io(m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent('too old resource version: 500 (900)') }));
    expect(m.phase).toMatchObject({ kind: 'Stopped', error: { reason: 'Expired', message: 'too old resource version: 500 (900)' } });
    expect(effects.at(-1)).toMatchObject({ kind: 'done', error: { httpCode: 410 } });
  });

  it('startAt with onExpired "relist" backs off and relists at that resourceVersion', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'relist' } }));
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.expired() });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: { resourceVersion: '500' }, pageSize: 0 }]);
  });

  it('the list after a startAt watch expired is a relist (replay --from-rv --on-expired relist counts it)', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'relist' } }));
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.expired() });
    expect(traces(m.send({ kind: 'slept' }), 'relist')).toEqual([expect.objectContaining({ rv: '500' })]);
  });

  it('a later expiry after startAt events is an ordinary 410, even with onExpired "stop"', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'stop' } }));
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: bookmark('600') });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
  });

  it('the watchdog closes a silent watch and re-watches from the last resourceVersion', () => {
    const m = new Machine().synced('100');
    const effects = m.send({ kind: 'watchdog', conn: 1, silentMs: 60_000 }, 60_000);
    expect(io(effects)).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'watch', conn: 2, options: { resourceVersion: '100', timeoutSeconds: 300, allowWatchBookmarks: true } }]);
    expect(traces(effects, 'watchdog')[0]).toMatchObject({ conn: 1, silentMs: 60_000 });
  });

  it('abort closes the open watch and stops; later inputs change nothing', () => {
    const m = new Machine().synced('100');
    expect(io(m.send({ kind: 'abort' }))).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'stopResync' }, { kind: 'done' }]);
    expect(m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '101')) })).toEqual([]);
    expect(m.phase).toEqual({ kind: 'Stopped' });
  });

  it('ignores inputs from a superseded watch connection', () => {
    const m = new Machine().synced('100');
    m.send({ kind: 'watchdog', conn: 1, silentMs: 1 }, 5000);
    expect(m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '101')) })).toEqual([]);
    expect(m.send({ kind: 'closed', conn: 1, reason: 'eof' })).toEqual([]);
  });

  it('produces no trace effects when tracing is off', () => {
    const m = new Machine(config(), 0, false).synced('100');
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '101')) });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() });
    expect(m.effects.filter((e) => e.kind === 'trace')).toEqual([]);
  });
});

// The second pass over the first mutation round's gaps (docs/mutation.md, "Informer, first round"): each test pins a
// decision a surviving mutant changed. client-go references are to tools/cache/reflector.go (watchList, watchHandler,
// list, isWatchErrorRetriable).
describe('reflector step: the watch-list\'s edges', () => {
  const wl = (o: Partial<ReflectorConfig> = {}) => new Machine(config({ useWatchList: true, ...o }));
  /** A watch-list whose first stream ended (after 10 s, no bookmark) and whose second one, conn 2, is open at 10 s. */
  const secondAttempt = (o: Partial<ReflectorConfig> = {}) => {
    const m = wl(o);
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 10_000);
    m.send({ kind: 'watchOpened', conn: 2 }, 10_000);
    return m;
  };

  it('ignores every input of a superseded connection while a watch-list is being opened or streams', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 10_000);
    const stale: ReflectorInput[] = [
      { kind: 'watchOpened', conn: 1 },
      { kind: 'watchFailed', conn: 1, error: fakeErrors.forbidden() },
      { kind: 'event', conn: 1, event: ev('ADDED', pod('a', '7')) },
      { kind: 'event', conn: 1, event: bookmark('8', true) },
      { kind: 'closed', conn: 1, reason: 'eof' },
      { kind: 'streamError', conn: 1, error: fakeErrors.internalError() },
      { kind: 'watchdog', conn: 1, silentMs: 99_000 },
    ];
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', conn: 2, watchList: true });
    const starting = m.state;
    for (const input of stale) expect(m.send(input, 10_001)).toEqual([]);
    expect(m.state).toEqual(starting);
    m.send({ kind: 'watchOpened', conn: 2 }, 10_001);
    expect(m.phase).toMatchObject({ kind: 'WatchListing', conn: 2 });
    const streaming = m.state;
    for (const input of stale) expect(m.send(input, 10_002)).toEqual([]);
    expect(m.state).toEqual(streaming);
  });

  it('the watchdog during a watch-list re-opens a watch-list (a plain watch would never replace the store)', () => {
    // client-go's watchList loops until the initial-events-end bookmark: a stream that ends without it is re-opened
    // with sendInitialEvents, never as a plain watch.
    const m = wl({ initialEventsEndTimeoutMs: 30_000 });
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '5')) });
    const effects = m.send({ kind: 'watchdog', conn: 1, silentMs: 20_000 }, 20_000);
    expect(io(effects)).toEqual([
      { kind: 'closeWatch', conn: 1 },
      { kind: 'resetCollected' },
      { kind: 'watch', conn: 2, options: { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 } },
    ]);
    expect(traces(effects, 'watchdog')).toEqual([{ op: 'watchdog', conn: 1, silentMs: 20_000, events: 1 }]);
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', conn: 2, watchList: true, start: 20_000 });
    expect(m.state.memory.watchListSince).toBe(0); // the same sync attempt: its bound still counts from the first
  });

  it('a watch-list is very short only under a second from its own request: 999 ms falls back to LIST, 1000 ms tries again', () => {
    // client-go watchList: `start := r.clock.Now()` before each Watch; watchHandler's very-short error is not
    // retriable, so watchList returns it and ListAndWatch falls back to LIST/WATCH.
    const short = secondAttempt();
    const effects = short.send({ kind: 'closed', conn: 2, reason: 'eof' }, 10_999);
    // The stream has already ended: nothing to close, nothing counted as expired.
    expect(io(effects)).toEqual([{ kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
    expect(traces(effects, 'very-short-watch')).toEqual([{ op: 'very-short-watch', conn: 2, ms: 999, error: veryShortWatchMessage('pods') }]);
    expect(short.phase).toMatchObject({ kind: 'Listing', resourceVersion: '0' });
    const long = secondAttempt();
    const again = long.send({ kind: 'closed', conn: 2, reason: 'eof' }, 11_000);
    expect(io(again).at(-1)).toMatchObject({ kind: 'watch', conn: 3, options: { sendInitialEvents: true } });
    expect(traces(again, 'watch-close')[0]).toMatchObject({ conn: 2, ms: 1000, events: 0, initialEventsEnd: false });
  });

  it('an ERROR other than 410 or 429 while the initial events stream closes the stream and falls back to LIST, counting no expiry', () => {
    // client-go watchList: not isWatchErrorRetriable, not expired or too large → it returns the error, and
    // ListAndWatch falls back to LIST/WATCH ("making progress is better than deadlocking").
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const effects = m.send({ kind: 'event', conn: 1, event: ev('ERROR', { kind: 'Status', code: 500, message: 'boom', metadata: {} } as unknown as KubeObject) }, 5000);
    expect(io(effects)).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
    expect(traces(effects, 'fallback')).toHaveLength(1);
  });

  it('a 429 ERROR while the initial events stream backs off, then opens another watch-list', () => {
    // client-go watchList's isErrorRetriableWithSideEffectsFn: isWatchErrorRetriable → wait a backoff, loop.
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const effects = io(m.send({ kind: 'event', conn: 1, event: fakeErrors.tooManyRequestsEvent() }, 5000));
    expect(effects).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'sleep', ms: 800, reason: 'backoff' }]);
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch-list', reason: '429 during watch-list' });
    expect(io(m.send({ kind: 'slept' }, 6000)).at(-1)).toMatchObject({ kind: 'watch', conn: 2, options: { sendInitialEvents: true } });
  });

  it('a too-large resourceVersion at a watch-list\'s start retries the watch-list at once from "", without a backoff', () => {
    // client-go watchList: isTooLargeResourceVersionError → setIsLastSyncResourceVersionUnavailable(true), loop.
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: bookmark('100', true) });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 5000);
    m.send({ kind: 'slept' }, 6000);
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', watchList: true, resourceVersion: '100' });
    const effects = io(m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.tooLargeResourceVersion() }, 6000));
    expect(effects).toEqual([{ kind: 'resetCollected' }, { kind: 'watch', conn: m.conn, options: { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 } }]);
  });

  it('with --fallback, a late no-initial-events-end timer after the watch-list already fell back on an error does nothing', () => {
    const m = wl({ initialEventsEndTimeoutMs: 30_000, fallbackWithoutInitialEventsEnd: true });
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.invalid() });
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '0' });
    const listing = m.state;
    expect(m.send({ kind: 'initialEventsOverdue' }, 30_000)).toEqual([]);
    expect(m.state).toEqual(listing);
  });

  it('with --fallback, the bound passing while the watch-list request is in flight lists at once; the late answer is ignored', () => {
    const m = wl({ initialEventsEndTimeoutMs: 30_000, fallbackWithoutInitialEventsEnd: true });
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 20_000);
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', conn: 2, watchList: true });
    const effects = m.send({ kind: 'initialEventsOverdue' }, 30_000);
    // No closeWatch: conn 2 is not open yet (the driver closes it when it arrives).
    expect(io(effects)).toEqual([{ kind: 'resetCollected' }, { kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
    expect(traces(effects, 'no-initial-events-end')[0]).toMatchObject({ conn: 2, ms: 30_000, fallback: true });
    expect(traces(effects, 'no-initial-events-end')[0]).not.toHaveProperty('events');
    expect(m.send({ kind: 'watchOpened', conn: 2 }, 30_001)).toEqual([]);
    expect(m.phase).toMatchObject({ kind: 'Listing' });
  });

  it('without --fallback, the bound passing during a backoff is recorded without a connection, and the backoff goes on', () => {
    const m = wl({ initialEventsEndTimeoutMs: 30_000 });
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.connectionRefused() });
    const effects = m.send({ kind: 'initialEventsOverdue' }, 30_000);
    expect(io(effects)).toEqual([]);
    expect(traces(effects, 'no-initial-events-end')[0]).not.toHaveProperty('conn');
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch-list' });
  });
});

describe('reflector step: startAt failures that are not a 410', () => {
  const stopOnExpired = () => new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'stop' } }));

  it('with onExpired "stop", a 403 at watch start backs off and relists at the start resourceVersion instead of stopping', () => {
    // Only an Expired answer means the start RV is gone; any other failure to start a watch ends client-go's
    // ListAndWatch as usual (back off, list again).
    const m = stopOnExpired();
    m.send({ kind: 'start' });
    const effects = io(m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.forbidden() }));
    expect(effects).toEqual([{ kind: 'stopResync' }, { kind: 'sleep', ms: 800, reason: 'backoff' }]);
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'list', options: { resourceVersion: '500' }, pageSize: 0 }]);
  });

  it('with onExpired "stop", connection refused at watch start re-watches from the start resourceVersion', () => {
    const m = stopOnExpired();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.connectionRefused() });
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'watch' });
    expect(io(m.send({ kind: 'slept' }))).toEqual([{ kind: 'watch', conn: 2, options: { resourceVersion: '500', timeoutSeconds: 300, allowWatchBookmarks: true } }]);
  });

  it('with onExpired "stop", a 500 ERROR on the open watch before any event backs off and relists', () => {
    const m = stopOnExpired();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: ev('ERROR', { kind: 'Status', code: 500, message: 'boom', metadata: {} } as unknown as KubeObject) }, 5000);
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
  });
});

describe('reflector step: the paginated-result memory', () => {
  it('a paginated relist from "" (after an expired RV) does not keep later relists paged', () => {
    // client-go list(): `if options.ResourceVersion == "0" && paginatedResult { r.paginatedResult = true }` — only the
    // initial RV="0" list tells that the watch cache is off; an RV="" list is served from etcd, paged anyway.
    const m = new Machine().synced('100');
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 10);
    m.send({ kind: 'slept' }, 900);
    m.send({ kind: 'listFailed', error: fakeErrors.expired() }, 901);
    expect(m.phase).toMatchObject({ kind: 'Listing', resourceVersion: '' });
    m.send({ kind: 'listed', items: [], resourceVersion: '900', paginatedResult: true, pages: 3, ms: 1 }, 902);
    expect(m.state.memory.paginatedResult).toBe(false);
    m.send({ kind: 'watchOpened', conn: m.conn }, 902);
    m.send({ kind: 'event', conn: m.conn, event: fakeErrors.expiredEvent() }, 5000);
    expect(io(m.send({ kind: 'slept' }, 6000))).toEqual([{ kind: 'list', options: { resourceVersion: '900' }, pageSize: 0 }]);
  });
});

describe('reflector step: the second Stryker run\'s gaps', () => {
  const wl = (o: Partial<ReflectorConfig> = {}) => new Machine(config({ useWatchList: true, ...o }));
  const status500 = () => ev('ERROR', { kind: 'Status', code: 500, message: 'boom', metadata: {} } as unknown as KubeObject);

  it('a second start, or anything after a stop, asks for nothing (one run, one done)', () => {
    const m = new Machine().synced('100');
    expect(m.send({ kind: 'start' })).toEqual([]);
    m.send({ kind: 'abort' });
    expect(m.send({ kind: 'abort' })).toEqual([]);
    expect(m.send({ kind: 'start' })).toEqual([]);
    expect(m.send({ kind: 'slept' })).toEqual([]);
  });

  it('an undecodable line while the initial events stream closes the stream and falls back to LIST', () => {
    // client-go: the decoder's error is a 500 (ClientWatchDecoding), not retriable by watchList → LIST/WATCH.
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const effects = io(m.send({ kind: 'streamError', conn: 1, error: new WatchDecodeError('unable to decode an event from the watch stream: x', '{x') }, 5000));
    expect(effects).toEqual([{ kind: 'closeWatch', conn: 1 }, { kind: 'list', options: { resourceVersion: '0' }, pageSize: 500 }]);
  });

  it('a refused watch-list after a sync resumes with a watch-list that is not counted as another relist', () => {
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    const first = m.send({ kind: 'event', conn: 1, event: bookmark('100', true) });
    expect(traces(first, 'synced')).toEqual([{ op: 'synced', from: 'watch-list', rv: '100' }]);
    m.send({ kind: 'event', conn: 1, event: status500() }, 5000);
    expect(io(m.send({ kind: 'slept' }, 6000))[0]).toEqual({ kind: 'count', stat: 'relists' });
    m.send({ kind: 'watchFailed', conn: m.conn, error: fakeErrors.connectionRefused() }, 6000);
    expect(io(m.send({ kind: 'slept' }, 7000)).map((e) => e.kind)).toEqual(['resetCollected', 'watch']);
    m.send({ kind: 'watchOpened', conn: m.conn }, 7000);
    expect(traces(m.send({ kind: 'event', conn: m.conn, event: bookmark('150', true) }, 7000), 'synced')).toEqual([]);
  });

  it('a watch-list that synced after retrying from "" marks its resourceVersion available again: the next one starts from it', () => {
    // client-go watchList: after the bookmark, setIsLastSyncResourceVersionUnavailable(false).
    const m = wl();
    m.send({ kind: 'start' });
    m.send({ kind: 'watchFailed', conn: 1, error: fakeErrors.expired() });
    expect(m.phase).toMatchObject({ kind: 'StartingWatch', resourceVersion: '' });
    m.send({ kind: 'watchOpened', conn: 2 });
    m.send({ kind: 'event', conn: 2, event: bookmark('200', true) });
    m.send({ kind: 'event', conn: 2, event: status500() }, 5000);
    expect(io(m.send({ kind: 'slept' }, 6000)).at(-1)).toEqual({
      kind: 'watch',
      conn: 3,
      options: { resourceVersion: '200', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 },
    });
  });

  it('startAt with onExpired "relist": a 410 on the open watch before any event backs off and relists at the start resourceVersion', () => {
    const m = new Machine(config({ startAt: { resourceVersion: '500', onExpired: 'relist' } }));
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: fakeErrors.expiredEvent() }, 5000);
    expect(m.phase).toMatchObject({ kind: 'BackingOff', next: 'list-and-watch' });
    expect(io(m.send({ kind: 'slept' }, 6000))).toEqual([{ kind: 'list', options: { resourceVersion: '500' }, pageSize: 0 }]);
  });

  it('without --fallback, the next watch-list attempt after a no-initial-events-end record gets a bound of its own', () => {
    const m = wl({ initialEventsEndTimeoutMs: 30_000 });
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'event', conn: 1, event: ev('ADDED', pod('a', '5')) });
    m.send({ kind: 'initialEventsOverdue' }, 30_000);
    expect(io(m.send({ kind: 'closed', conn: 1, reason: 'eof' }, 40_000))).toContainEqual({ kind: 'awaitInitialEventsEnd', ms: 30_000 });
    m.send({ kind: 'watchOpened', conn: 2 }, 40_000);
    expect(traces(m.send({ kind: 'initialEventsOverdue' }, 70_000), 'no-initial-events-end')[0]).toMatchObject({ conn: 2, ms: 30_000 });
  });

  it('with --fallback, the LIST after no initial-events-end is retried at once from "" when its resourceVersion expired', () => {
    const m = wl({ initialEventsEndTimeoutMs: 30_000, fallbackWithoutInitialEventsEnd: true });
    m.send({ kind: 'start' });
    m.send({ kind: 'watchOpened', conn: 1 });
    m.send({ kind: 'initialEventsOverdue' }, 30_000);
    expect(m.phase).toMatchObject({ kind: 'Listing', unavailableRetry: false });
    expect(io(m.send({ kind: 'listFailed', error: fakeErrors.expired() }, 30_001))).toEqual([{ kind: 'count', stat: 'expired' }, { kind: 'list', options: {}, pageSize: 500 }]);
  });
});
