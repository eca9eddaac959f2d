import { describe, expect, it } from 'vitest';
import { ConnectionError, StatusError, StreamCutError } from '../../../src/informer/errors.js';
import { RecordedListerWatcher } from '../../../src/informer/recording/recorded-lister-watcher.js';
import type { RecordingEntry } from '../../../src/informer/recording/recording-format.js';
import { parseRecording } from '../../../src/informer/recording/recording-reader.js';
import { buildTimeline } from '../../../src/informer/recording/recording-timeline.js';
import { parseReplayFault } from '../../../src/informer/recording/replay-faults.js';
import { replayRecording, type ReplayRecordingOptions } from '../../../src/informer/recording/replay-recording.js';
import { Tracer, type TraceRecord } from '../../../src/informer/trace.js';
import type { KubeObject, WatchEvent } from '../../../src/informer/types.js';
import { VirtualClock } from '../../../src/informer/recording/virtual-clock.js';
import { ENTRIES, HEADER, pod, recordingText } from './recording-fixture.js';

async function replay(opts: Partial<ReplayRecordingOptions> & { inject?: string[] } = {}) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const { inject, ...rest } = opts;
  const result = await replayRecording({ recording: parseRecording(recordingText()), tracer, signal: new AbortController().signal, faults: (inject ?? []).map(parseReplayFault), ...rest });
  return { records, result };
}

const line = (r: TraceRecord) => `${r.op} ${r.key ?? ''}@${r.rv ?? ''}${r.tombstone ? ' tombstone' : ''}${r.sync ? ' sync' : ''}`;
const of = (rs: TraceRecord[], stage: string) => rs.filter((r) => r.stage === stage).map(line);

/** What a live informer's handlers saw for the fixture recording. */
const LIVE_HANDLERS = [
  'OnAdd default/a@90',
  'OnAdd default/b@95',
  'OnUpdate default/a@101',
  'OnAdd default/c@102',
  'OnDelete default/b@103',
  'OnUpdate default/c@104',
  'OnUpdate default/a@105',
  // the relist after the 410: a unchanged (a sync), c changed in the gap, d new
  'OnUpdate default/a@105 sync',
  'OnUpdate default/c@108',
  'OnAdd default/d@109',
  'OnUpdate default/d@111',
];

describe('replayRecording', () => {
  it('feeds the recorded lists and watches through the real pipeline, in order, on recorded time', async () => {
    const { records, result } = await replay();
    expect(of(records, 'handler')).toEqual(LIVE_HANDLERS);
    expect(result.stoppedBy).toBe('end');
    expect(result.stats).toEqual({ recorded: 5, synthesizedLists: 0, synthesizedExpiries: 0 });
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    expect(records.find((r) => r.stage === 'watch' && r.rv === '104')!.time).toBe(t0 + 400);
    expect(of(records, 'reflector').filter((l) => /^(expired|relist|listed)/.test(l))).toEqual(['listed @100', 'expired @105', 'relist @105', 'listed @110']);
  });

  it('ends where the recorded run stopped (its last watch closed by the client), not at the last event, as the live run watched until then', async () => {
    const { records, result } = await replay();
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    // The fixture's last event is at 2150, the run stopped (watch-end aborted) at 2200.
    expect(result.endTime).toBe(t0 + 2200);
    expect(records.find((r) => r.stage === 'reflector' && r.op === 'stopped')?.time).toBe(t0 + 2200);
  });

  it('is deterministic: two runs trace exactly the same records', async () => {
    const a = await replay();
    const b = await replay();
    expect(JSON.stringify(b.records)).toBe(JSON.stringify(a.records));
  });

  it('--from-rv rebuilds the cache silently and starts at the first event after the resourceVersion', async () => {
    let seeded: unknown;
    const { records } = await replay({ fromRv: '103', onSeeded: (s) => (seeded = s) });
    expect(seeded).toEqual({ resourceVersion: '103', objects: 2 });
    expect(records[0]).toMatchObject({ stage: 'watch', op: 'MODIFIED', rv: '104' });
    expect(of(records, 'handler')).toEqual(LIVE_HANDLERS.slice(LIVE_HANDLERS.indexOf('OnUpdate default/c@104')));
    // the handler saw the old object exactly as the live informer had it
    expect(records.find((r) => r.stage === 'handler' && r.rv === '104')).toMatchObject({ oldRv: '102' });
  });

  it('--from-rv before a relist replays the relist the recording made', async () => {
    const { records } = await replay({ fromRv: '105' });
    expect(of(records, 'handler')).toEqual(['OnUpdate default/a@105 sync', 'OnUpdate default/c@108', 'OnAdd default/d@109', 'OnUpdate default/d@111']);
  });

  it('--until-rv stops once the stream passes the resourceVersion', async () => {
    const { records, result } = await replay({ untilRv: '103' });
    expect(result.stoppedBy).toBe('until-rv');
    expect(of(records, 'watch')).toEqual(['MODIFIED default/a@101', 'ADDED default/c@102', 'DELETED default/b@103']);
    expect(of(records, 'handler').at(-1)).toBe('OnDelete default/b@103');
  });

  it('--max-events counts object events', async () => {
    const { records, result } = await replay({ maxEvents: 2 });
    expect(result.stoppedBy).toBe('max-events');
    expect(of(records, 'watch')).toEqual(['MODIFIED default/a@101', 'ADDED default/c@102']);
  });

  it('drop-connection@RV: the reflector re-watches from RV and no handler event is lost or doubled', async () => {
    const { records, result } = await replay({ inject: ['drop-connection@101'] });
    expect(of(records, 'handler')).toEqual(LIVE_HANDLERS);
    const reflector = records.filter((r) => r.stage === 'reflector' && (r.op === 'watch-close' || r.op === 'watch-start'));
    expect(reflector.slice(1, 3).map((r) => [r.op, r.reason ?? r.rv])).toEqual([
      ['watch-close', 'connection'],
      ['watch-start', '101'],
    ]);
    expect(result.unusedFaults).toEqual([]);
  });

  it('expire@RV: an ERROR 410, a relist served from the recording state at RV, then the rest of the stream', async () => {
    const { records, result } = await replay({ inject: ['expire@102'] });
    const watch = records.filter((r) => r.stage === 'watch');
    expect(watch[2]).toMatchObject({ op: 'ERROR', error: expect.stringContaining('too old resource version: 102') });
    const relist = records.filter((r) => r.stage === 'reflector' && ['expired', 'relist', 'listed'].includes(r.op)).slice(1, 4);
    expect(relist.map((r) => [r.op, r.rv])).toEqual([['expired', '102'], ['relist', '102'], ['listed', '102']]);
    // the relist at 102 (a, b, c unchanged) gives each handler a no-change update, as a real relist does
    expect(of(records, 'handler')).toEqual([...LIVE_HANDLERS.slice(0, 4), 'OnUpdate default/a@101 sync', 'OnUpdate default/b@95 sync', 'OnUpdate default/c@102 sync', ...LIVE_HANDLERS.slice(4)]);
    expect(result.stats.synthesizedLists).toBe(1);
  });

  it('hide-delete:KEY: the delete is lost and the next relist delivers a DeletedFinalStateUnknown tombstone', async () => {
    const { records } = await replay({ inject: ['hide-delete:default/b'] });
    const h = of(records, 'handler');
    expect(h).not.toContain('OnDelete default/b@103');
    expect(h.slice(5, 9)).toEqual(['OnUpdate default/a@105', 'OnDelete default/b@95 tombstone', 'OnUpdate default/a@105 sync', 'OnUpdate default/c@108']);
  });

  it('hide-delete:KEY leaves a trace line where the delete was hidden, and says when the cache still holds the deleted object at the end', async () => {
    const { records, result } = await replay({ inject: ['hide-delete:default/b'], untilRv: '104' });
    expect(records.find((r) => r.stage === 'reflector' && r.op === 'fault')).toMatchObject({ key: 'default/b', rv: '103', fault: 'hide-delete:default/b', event: 'DELETED', explanation: expect.stringContaining('hidden') });
    expect(result.staleAfterHiddenDelete).toEqual([{ resource: 'pods', key: 'default/b', deletedRv: '103' }]);
    // Replayed to the end, the relist after the 410 finds b gone (a tombstone): nothing stale.
    expect((await replay({ inject: ['hide-delete:default/b'] })).result.staleAfterHiddenDelete).toEqual([]);
  });

  it('duplicate@RV: the event arrives twice; the second is a no-change update', async () => {
    const { records } = await replay({ inject: ['duplicate@102'] });
    expect(of(records, 'watch').filter((l) => l.endsWith('@102'))).toEqual(['ADDED default/c@102', 'ADDED default/c@102']);
    expect(of(records, 'handler').slice(3, 5)).toEqual(['OnAdd default/c@102', 'OnUpdate default/c@102 sync']);
  });

  it('reports injected faults that matched nothing', async () => {
    const { result } = await replay({ inject: ['expire@999', 'hide-delete:default/zz'] });
    expect(result.unusedFaults).toEqual(['expire@999', 'hide-delete:default/zz']);
  });

  it('--fifo delta delivers the same handler events for this stream', async () => {
    const { records } = await replay({ fifo: 'delta' });
    expect(of(records, 'handler')).toEqual(LIVE_HANDLERS);
    expect(records.find((r) => r.stage === 'fifo')).toMatchObject({ fifo: 'delta' });
  });
});

describe('replayRecording of a watch-list recording (events\' default sync)', () => {
  const endBookmark = { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '100', annotations: { 'k8s.io/initial-events-end': 'true' } } };
  const WATCH_LIST: RecordingEntry[] = [
    { rec: 'watch-start', t: 10, res: 0, conn: 1, options: { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, timeoutSeconds: 400 } },
    { rec: 'event', t: 20, res: 0, conn: 1, event: { type: 'ADDED', object: pod('a', 90) } },
    { rec: 'event', t: 21, res: 0, conn: 1, event: { type: 'ADDED', object: pod('b', 95) } },
    { rec: 'event', t: 22, res: 0, conn: 1, event: { type: 'BOOKMARK', object: endBookmark as unknown as KubeObject } },
    { rec: 'event', t: 100, res: 0, conn: 1, event: { type: 'MODIFIED', object: pod('a', 101, 'nginx:2') } },
    { rec: 'watch-end', t: 200, res: 0, conn: 1, reason: 'aborted' },
  ];

  it('syncs with a watch-list as the recording did: the initial events are the initial list, no list is made up', async () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const result = await replayRecording({ recording: parseRecording(recordingText(undefined, WATCH_LIST)), tracer, signal: new AbortController().signal, faults: [] });
    const handlers = records.filter((r) => r.stage === 'handler').map((r) => `${line(r)}${r.isInInitialList ? ' initial' : ''}`);
    expect(handlers).toEqual(['OnAdd default/a@90 initial', 'OnAdd default/b@95 initial', 'OnUpdate default/a@101']);
    expect(result.stats).toEqual({ recorded: 1, synthesizedLists: 0, synthesizedExpiries: 0 });
    expect(records.some((r) => r.stage === 'reflector' && r.op === 'initial-events-end')).toBe(true);
  });

  /** A watch-list the server never ended (its initial-events-end dropped), given up by the live reflector at 1 s for a LIST, then a WATCH. */
  const FELL_BACK: RecordingEntry[] = [
    { rec: 'watch-start', t: 10, res: 0, conn: 1, options: { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, timeoutSeconds: 400 } },
    { rec: 'event', t: 20, res: 0, conn: 1, event: { type: 'ADDED', object: pod('a', 90) } },
    { rec: 'event', t: 21, res: 0, conn: 1, event: { type: 'ADDED', object: pod('b', 95) } },
    { rec: 'watch-end', t: 1001, res: 0, conn: 1, reason: 'aborted' },
    { rec: 'list', t: 1010, res: 0, conn: 2, options: { resourceVersion: '0', limit: 500 }, page: { metadata: { resourceVersion: '100' }, items: [pod('a', 90), pod('b', 95)] } },
    { rec: 'watch-start', t: 1012, res: 0, conn: 3, options: { resourceVersion: '100', allowWatchBookmarks: true, timeoutSeconds: 400 } },
    { rec: 'event', t: 1500, res: 0, conn: 3, event: { type: 'MODIFIED', object: pod('a', 101, 'nginx:2') } },
    { rec: 'watch-end', t: 2000, res: 0, conn: 3, reason: 'aborted' },
  ];
  const replayFellBack = async (header: object) => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const result = await replayRecording({ recording: parseRecording(recordingText(header, FELL_BACK)), tracer, signal: new AbortController().signal, faults: [] });
    const reflector = records.filter((r) => r.stage === 'reflector').map((r) => r.op);
    return { records, result, reflector };
  };

  it("replays a --fallback recording with the live reflector's bound: no-initial-events-end at it, one fallback, two watches, no watch error", async () => {
    const { records, result, reflector } = await replayFellBack({ ...HEADER, watchList: { initialEventsEndTimeoutMs: 1000, fallbackWithoutInitialEventsEnd: true } });
    expect(result.stoppedBy).toBe('end');
    expect(result.stats).toEqual({ recorded: 3, synthesizedLists: 0, synthesizedExpiries: 0 });
    const overdue = records.find((r) => r.stage === 'reflector' && r.op === 'no-initial-events-end');
    expect(overdue).toMatchObject({ fallback: true, message: expect.stringMatching(/^no initial-events-end after 1s:/) });
    expect(reflector.filter((op) => op === 'watch-start')).toHaveLength(2);
    expect(reflector.filter((op) => op === 'fallback')).toHaveLength(1);
    expect(reflector).not.toContain('watch-error');
    expect(of(records, 'handler')).toEqual(['OnAdd default/a@90', 'OnAdd default/b@95', 'OnUpdate default/a@101']);
  });

  it('a --fallback recording made before the header kept the watch-list settings still replays to its end, falling back on an error', async () => {
    const { result, reflector, records } = await replayFellBack(HEADER);
    expect(result.stoppedBy).toBe('end');
    expect(reflector).not.toContain('no-initial-events-end');
    expect(reflector.filter((op) => op === 'fallback')).toHaveLength(1);
    expect(of(records, 'handler')).toEqual(['OnAdd default/a@90', 'OnAdd default/b@95', 'OnUpdate default/a@101']);
  });

  it('a LIST+WATCH client (reconcile --from-recording) gets the initial events as its list, then the same stream after the bookmark', async () => {
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(WATCH_LIST), clock: new VirtualClock(1e9), startEpoch: 0 }); // past every entry: no waits
    const page = await lw.list({ resourceVersion: '0', limit: 500 });
    expect(page.metadata.resourceVersion).toBe('100');
    expect(page.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(['a@90', 'b@95']);
    const stream = await lw.watch({ resourceVersion: '100' });
    const [next] = await collectFirst(stream);
    expect(next).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '101' } } });
    expect(lw.stats).toEqual({ recorded: 1, synthesizedLists: 0, synthesizedExpiries: 0 });
  });
});

async function collectFirst(stream: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  for await (const e of stream) return [e];
  return [];
}

describe('RecordedListerWatcher', () => {
  // Past every recorded time: nothing waits.
  const clock = () => new VirtualClock(1e9);
  const collect = async (stream: AsyncIterable<WatchEvent>, n: number) => {
    const out: WatchEvent[] = [];
    for await (const e of stream) {
      out.push(e);
      if (out.length === n) break;
    }
    return out;
  };

  it('serves the pages of a paged list by their continue tokens', async () => {
    const entries: RecordingEntry[] = [
      { rec: 'list', t: 0, res: 0, conn: 1, options: { limit: 1 }, page: { metadata: { continue: 'k1' }, items: [pod('a', 1)] }, bytes: 300 },
      { rec: 'list', t: 0, res: 0, conn: 2, options: { limit: 1, continue: 'k1' }, page: { metadata: { resourceVersion: '5' }, items: [pod('b', 2)] } },
    ];
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(entries), clock: clock(), startEpoch: 0 });
    const p1 = await lw.list({ limit: 1 });
    expect(p1).toMatchObject({ metadata: { continue: 'k1' }, bytes: 300 });
    expect((await lw.list({ limit: 1, continue: 'k1' })).items[0].metadata.name).toBe('b');
  });

  it('throws the recorded errors: a Status as StatusError, a refused connection as ConnectionError', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden', reason: 'Forbidden', code: 403 } as const;
    const entries: RecordingEntry[] = [
      { rec: 'error', t: 0, res: 0, conn: 1, op: 'list', options: {}, status, message: 'forbidden' },
      { rec: 'error', t: 0, res: 0, conn: 2, op: 'watch', options: {}, message: 'connect ECONNREFUSED 127.0.0.1:1' },
    ];
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(entries), clock: clock(), startEpoch: 0 });
    await expect(lw.list({})).rejects.toBeInstanceOf(StatusError);
    const err = await lw.watch({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).refused).toBe(true);
  });

  it('ends a watch as it ended: a cut stream as StreamCutError with the same message', async () => {
    const message = new StreamCutError('x'.repeat(12)).message;
    const entries: RecordingEntry[] = [
      { rec: 'watch-start', t: 0, res: 0, conn: 1, options: {} },
      { rec: 'event', t: 0, res: 0, conn: 1, event: { type: 'ADDED', object: pod('a', 1) } },
      { rec: 'watch-end', t: 0, res: 0, conn: 1, reason: 'error', error: message },
    ];
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(entries), clock: clock(), startEpoch: 0 });
    const stream = await lw.watch({});
    const err = await collect(stream, 5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamCutError);
    expect((err as Error).message).toBe(message);
  });

  it('answers a watch where the recording relisted with 410 Expired, and turns exhausted past the end', async () => {
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(ENTRIES.slice(11, 12)), clock: clock(), startEpoch: 0 });
    const [ev] = await collect(await lw.watch({ resourceVersion: '105' }), 1);
    expect(ev).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    expect((await lw.list({ resourceVersion: '105' })).metadata.resourceVersion).toBe('110');
    expect(lw.exhausted).toBe(false);
    const stream = await lw.watch({ resourceVersion: '110' });
    expect(lw.exhausted).toBe(true);
    stream.close();
  });

  it('close() ends a stream that is waiting for its next recorded event', async () => {
    const c = new VirtualClock(50); // after the watch started (t=12), before its first event (t=100)
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(ENTRIES.slice(1, 4)), clock: c, startEpoch: 0 });
    const stream = await lw.watch({});
    const it = stream[Symbol.asyncIterator]();
    const pending = it.next();
    stream.close();
    expect(await pending).toEqual({ value: undefined, done: true });
  });
});

describe('replay follows the recorded path and clock', () => {
  const tooMany = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 2 } };
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  const run = async (entries: object[]) => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const result = await replayRecording({ recording: parseRecording(recordingText(undefined, entries)), tracer, signal: new AbortController().signal });
    return { records, result };
  };

  it("waits a recorded error's Retry-After, as the live reflector did: no backoff, events at their recorded times", async () => {
    // Live: the re-watch got 429 with Retry-After 2s four times in a row; each retry came 2s later.
    const entries: object[] = [
      { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { metadata: { resourceVersion: '100' }, items: [pod('a', 90)] } },
      { rec: 'watch-start', t: 12, res: 0, conn: 2, options: { resourceVersion: '100', allowWatchBookmarks: true, timeoutSeconds: 400 } },
      { rec: 'event', t: 1000, res: 0, conn: 2, event: { type: 'MODIFIED', object: pod('a', 101) } },
      { rec: 'watch-end', t: 1500, res: 0, conn: 2, reason: 'eof' },
    ];
    for (let i = 0; i < 4; i++) entries.push({ rec: 'error', t: 1502 + i * 2003, res: 0, conn: 3 + i, op: 'watch', options: { resourceVersion: '101' }, status: tooMany, message: tooMany.message });
    entries.push(
      { rec: 'watch-start', t: 9520, res: 0, conn: 7, options: { resourceVersion: '101', allowWatchBookmarks: true, timeoutSeconds: 400 } },
      { rec: 'event', t: 9744, res: 0, conn: 7, event: { type: 'MODIFIED', object: pod('a', 102) } },
      { rec: 'watch-end', t: 9800, res: 0, conn: 7, reason: 'aborted' },
    );
    const { records, result } = await run(entries);
    const ops = records.filter((r) => r.stage === 'reflector').map((r) => r.op);
    expect(ops.filter((op) => op === 'retry-after')).toHaveLength(4);
    expect(ops).not.toContain('backoff');
    expect(records.find((r) => r.stage === 'watch' && r.rv === '102')!.time).toBe(t0 + 9744);
    expect(result.lateFrom).toBeUndefined();
  });

  it('says where the replay fell behind the recorded clock when its reflector waited longer than the live one', async () => {
    // A client that re-watched 20 ms after a refused watch: the replayed reflector backs off for longer.
    const boom = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: leader changed', reason: 'InternalError', code: 500 };
    const { result } = await run([
      { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { metadata: { resourceVersion: '100' }, items: [pod('a', 90)] } },
      { rec: 'watch-start', t: 12, res: 0, conn: 2, options: { resourceVersion: '100', allowWatchBookmarks: true, timeoutSeconds: 400 } },
      { rec: 'watch-end', t: 1500, res: 0, conn: 2, reason: 'eof' },
      { rec: 'error', t: 1502, res: 0, conn: 3, op: 'watch', options: { resourceVersion: '100' }, status: boom, message: boom.message },
      { rec: 'watch-start', t: 1522, res: 0, conn: 4, options: { resourceVersion: '100', allowWatchBookmarks: true, timeoutSeconds: 400 } },
      { rec: 'event', t: 1600, res: 0, conn: 4, event: { type: 'MODIFIED', object: pod('a', 101) } },
      { rec: 'watch-end', t: 1700, res: 0, conn: 4, reason: 'aborted' },
    ]);
    expect(result.lateFrom).toMatchObject({ resource: 'pods', what: 'watch', recordedAt: t0 + 1522 });
    expect(result.lateFrom!.replayedAt - result.lateFrom!.recordedAt).toBeGreaterThan(500);
  });
});
