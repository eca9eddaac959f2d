// The Perfetto file (Chrome Trace Event JSON, times in µs): what ui.perfetto.dev draws of a trace. Flow arrows from a
// recorded reconcile run; units, tracks and names from records with chosen times.
import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { toPerfetto, type ChromeEvent } from '../../src/trace-export/perfetto.js';
import { isWrite, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { perfettoProblems } from './format-rules.js';
import { recordRun, writesDone } from './recorded-runs.js';
import { T0, trace } from './chosen-records.js';



const idOf = (e: ChromeEvent) => (e.args as { id?: number } | undefined)?.id;
const processNamed = (events: ChromeEvent[], name: string) => events.find((e) => e.ph === 'M' && e.name === 'process_name' && (e.args as { name: string }).name === name)!.pid;

describe('Perfetto flows of a recorded run', () => {
  it('arrows along the chain: reconcile → write → its echo → the reconcile that echo started → …; one arrow out of each slice', async () => {
    let n = 0;
    const rows = await recordRun({
      c: async (req, ctx) => {
        const d = await ctx.get('deployments.apps', req);
        if (!d || n >= 3) return;
        await ctx.patch(d, { metadata: { annotations: { stamp: String(++n) } } });
        // A second write in the first run: the slice hands on one arrow only.
        if (n === 1) await ctx.patch(d, { metadata: { labels: { second: 'yes' } } });
      },
    }, writesDone(4, 4));
    const file = toPerfetto(rows);
    expect(perfettoProblems(file)).toEqual([]);
    const flowing = file.traceEvents.filter((e) => e.bind_id !== undefined);
    const writes = rows.filter(isWrite);
    const starts = rows.filter((r) => r.stage === 'reconcile' && r.op === 'start');
    const echo = (w: TraceRow) => rows.find((r) => r.stage === 'watch' && r.echoOf === w.id)!;
    // The first run's second write (writes[1]) gets no arrow from the run, which handed its one on to writes[0]; its
    // echo is the newest event the next run was queued by, so the chain goes on from there.
    const first = [starts[0], writes[0], echo(writes[0])];
    const next = [writes[1], echo(writes[1]), starts[1], writes[2], echo(writes[2]), starts[2], writes[3], echo(writes[3]), starts[3]];
    const expected = [...first.map((r, i) => [r.id, '0x1', i > 0, i < first.length - 1]), ...next.map((r, i) => [r.id, '0x2', i > 0, i < next.length - 1])];
    expect(flowing.sort((a, b) => a.ts - b.ts).map((e) => [idOf(e), e.bind_id, e.flow_in ?? false, e.flow_out ?? false])).toEqual(expected);
  });
});

describe('Perfetto units and tracks', () => {
  it('µs timestamps: records of one millisecond keep their order 1 µs apart; durations from ms', () => {
    const rows = trace([
      [0, { stage: 'http', op: 'response', method: 'GET', url: 'https://k/api/v1/pods?limit=500', ms: 12.5, status: 200, bytes: 10 }],
      [0, { stage: 'reflector', op: 'list-page', name: 'pods', page: 1, items: 3, ms: 2 }],
      [0, { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '5', name: 'pods' }],
      [1, { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' }],
      [1.0004, { stage: 'reconcile', op: 'write', key: 'ns/a', target: 'ns/a', controller: 'c', verb: 'patch', rv: '6', ms: 3.25 }],
      [7, { stage: 'reconcile', op: 'success', key: 'ns/a', controller: 'c' }],
      [8, { stage: 'endpoint', op: 'http', client: 'k', method: 'POST', path: '/api/v1/namespaces/ns/configmaps', ms: 0.5, status: 201 }],
      [9, { stage: 'endpoint', op: 'write', client: 'k', key: 'ns/b', verb: 'create', resource: 'configmaps', code: 201, rv: '9' }],
    ]);
    const us = T0 * 1000;
    const x = toPerfetto(rows).traceEvents.filter((e) => e.ph === 'X').sort((a, b) => (idOf(a) ?? 0) - (idOf(b) ?? 0));
    expect(x.map((e) => [e.name, e.ts - us, e.dur])).toEqual([
      ['GET https://k/api/v1/pods', -12_500, 12_500],
      ['LIST pods page 1', 1 - 2000, 2000],
      ['ADDED ns/a', 2, 1],
      ['reconcile ns/a', 1000, 6000],
      ['patch ns/a', 1001, 3250],
      ['POST /api/v1/namespaces/ns/configmaps', 8000 - 500, 500],
      ['create ns/b', 9000, 1],
    ]);
    expect(x[4].args).toMatchObject({ writer: 'c', target: 'ns/a', rv: '6', code: undefined });
  });

  it('counters: queue depth, cache size, events per second (at each second\'s start, in µs)', () => {
    const rows = trace([
      [0, { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '1', name: 'pods' }],
      [999, { stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: '2', name: 'pods' }],
      [1000, { stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: '3', name: 'pods' }],
      [1001, { stage: 'workqueue', op: 'add', key: 'ns/a', controller: 'c', depth: 4 }],
      [1002, { stage: 'indexer', op: 'update', key: 'ns/a', size: 7 }],
      [1003, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', key: 'ns/a', rv: '3', event: 'MODIFIED' }],
    ]);
    const events = toPerfetto(rows).traceEvents;
    const counters = events.filter((e) => e.ph === 'C').map((e) => [e.name, e.ts, e.pid, e.args]);
    const second = Math.floor(T0 / 1000) * 1_000_000;
    expect(counters).toEqual([
      ['workqueue depth', (T0 + 1001) * 1000, processNamed(events, 'workqueue'), { depth: 4 }],
      ['cache size', (T0 + 1002) * 1000, processNamed(events, 'indexer'), { objects: 7 }],
      ['events/s', second, processNamed(events, 'watch'), { events: 2 }],
      ['events/s', second + 1_000_000, processNamed(events, 'watch'), { events: 1 }],
      ['events/s', second + 1_000_000, processNamed(events, 'client k'), { events: 1 }],
    ]);
  });

  it('instants: bookmarks, faults, 410s, relists and the endpoint\'s findings, on their process', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '1', conn: 3 }],
      [1, { stage: 'watch', op: 'BOOKMARK', name: 'pods', rv: '2' }],
      [2, { stage: 'watch', op: 'ERROR', name: 'pods', code: 410, message: 'too old' }],
      [3, { stage: 'reflector', op: 'expired', name: 'pods', rv: '1' }],
      [4, { stage: 'reflector', op: 'relist', name: 'pods', reason: 'expired' }],
      [5, { stage: 'reflector', op: 'backoff', name: 'pods', delayMs: 800 }],
      [6, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '9', conn: 4 }],
      [7, { stage: 'reflector', op: 'watch-error', name: 'pods', error: 'reset' }],
      [8, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'ERROR', code: 410 }],
      [9, { stage: 'endpoint', op: 'stale-write', client: 'k', key: 'ns/a', note: 'old' }],
      [10, { stage: 'reconcile', op: 'loop', key: 'ns/a', controller: 'c', rounds: 5 }],
    ]);
    const events = toPerfetto(rows).traceEvents;
    const processes = new Map(events.filter((e) => e.name === 'process_name').map((e) => [e.pid, (e.args as { name: string }).name]));
    expect(events.filter((e) => e.ph === 'i').map((e) => [e.name, e.cat, e.ts - T0 * 1000, processes.get(e.pid)])).toEqual([
      ['BOOKMARK', 'bookmark', 1000, 'watch'],
      ['ERROR 410', 'fault', 2000, 'watch'],
      ['410 Gone (expired)', 'fault', 3000, 'reflector'],
      ['relist pods', 'relist', 4000, 'reflector'],
      ['backoff', 'fault', 5000, 'reflector'],
      ['watch error', 'fault', 7000, 'reflector'],
      ['410 Gone', 'fault', 8000, 'client k'],
      ['stale-write', 'finding', 9000, 'client k'],
      ['loop ns/a', 'finding', 10_000, 'reconcile'],
    ]);
    expect(events.filter((e) => e.ph === 'X' && e.cat === 'watch').map((e) => [e.name, e.dur, (e.args as { end?: string }).end])).toEqual([['WATCH pods conn 3', 3000, 'expired'], ['WATCH pods conn 4', 1000, 'watch-error']]);
  });

  it('a watch still open when the run stopped is drawn to the end, named and threaded like a closed one', () => {
    const rows = trace([
      [0, { stage: 'endpoint', op: 'watch', client: 'kubectl[12]', resource: 'configmaps', key: 'default', event: 'start' }],
      [1, { stage: 'endpoint', op: 'watch', client: 'kubectl[12]', resource: 'configmaps', key: 'default', event: 'close', reason: 'eof' }],
      [2, { stage: 'endpoint', op: 'watch', client: 'kubectl[12]', resource: 'configmaps', key: 'default', event: 'start' }],
      [3, { stage: 'reflector', op: 'watch-start', name: 'pods', conn: 1 }],
      [4, { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' }],
      [10, { stage: 'endpoint', op: 'watch', client: 'kubectl[12]', resource: 'configmaps', key: 'default/x', rv: '4', event: 'ADDED' }],
    ]);
    const events = toPerfetto(rows).traceEvents;
    const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid} ${e.tid}`, (e.args as { name: string }).name]));
    expect(events.filter((e) => e.ph === 'X' && e.cat !== 'event').map((e) => [e.name, e.ts - T0 * 1000, e.dur, threads.get(`${e.pid} ${e.tid}`)])).toEqual([
      ['WATCH configmaps', 0, 1000, 'watch configmaps 1'],
      ['WATCH configmaps (open at the end)', 2000, 8000, 'watch configmaps 1'],
      ['WATCH pods (open at the end)', 3000, 7000, 'watch pods 1'],
      ['reconcile ns/a (running at the end)', 4000, 6000, 'reconcile 1'],
    ]);
  });

  it('a client\'s wire: its events 1 µs slices, its write → echo → next write one arrow chain; records without a duration draw no slice', () => {
    const ev = (event: string, rv: string): Omit<TraceRecord, 'time'> => ({ stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns/a', rv, event });
    const rows = trace([
      [0, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', event: 'start' }],
      [1, ev('ADDED', '1')],
      [2, { stage: 'endpoint', op: 'write', client: 'k', resource: 'configmaps', key: 'ns/a', rv: '2', code: 200, verb: 'patch', ms: 0.25, after: ['ADDED configmaps ns/a@1'] }],
      [3, ev('MODIFIED', '2')],
      [4, { stage: 'endpoint', op: 'write', client: 'k', resource: 'configmaps', key: 'ns/a', rv: '3', code: 200, verb: 'patch', after: ['MODIFIED configmaps ns/a@2 (own write)'] }],
      [5, { stage: 'http', op: 'request', method: 'GET', url: '/api' }],
      [6, { stage: 'reflector', op: 'list-page', name: 'pods', page: 1 }],
      [7, { stage: 'reflector', op: 'initial-events-end', name: 'pods' }],
      [8, { stage: 'endpoint', op: 'http', client: 'k', method: 'GET', path: '/api', ms: 1 }],
      [9, { stage: 'reconcile', op: 'start', key: 'ns/x', controller: 'c' }],
      [10, { stage: 'reconcile', op: 'requeue-after', key: 'ns/x', controller: 'c' }],
      [11, { stage: 'reconcile', op: 'start', key: 'ns/x', controller: 'c' }],
      [11, { stage: 'reconcile', op: 'error', key: 'ns/x', controller: 'c', error: 'boom' }],
    ]);
    const file = toPerfetto(rows);
    expect(perfettoProblems(file)).toEqual([]);
    const x = file.traceEvents.filter((e) => e.ph === 'X');
    // The watch still open ends at the last record, which is 1 µs after the one of the same millisecond before it.
    expect(x.map((e) => [e.name, e.cat, e.dur, e.bind_id, e.flow_in ?? false, e.flow_out ?? false, (e.args as { result?: string }).result])).toEqual([
      ['WATCH configmaps (open at the end)', 'watch', 11_001, undefined, false, false, undefined],
      ['ADDED ns/a', 'event', 1, '0x1', false, true, undefined],
      ['patch ns/a', 'write', 250, '0x1', true, true, undefined],
      ['MODIFIED ns/a', 'event', 1, '0x1', true, true, undefined],
      ['patch ns/a', 'write', 1, '0x1', true, false, undefined],
      ['reconcile ns/x', 'reconcile', 1000, undefined, false, false, 'requeue-after'],
      ['reconcile ns/x', 'reconcile', 1, undefined, false, false, 'error'],
    ]);
  });
});

/** What Perfetto shows of each event: name, phase, category, µs from T0, duration, its process and thread, its args. */
function picture(rows: TraceRow[]): unknown[][] {
  const events = toPerfetto(rows).traceEvents;
  const processes = new Map(events.filter((e) => e.name === 'process_name').map((e) => [e.pid, (e.args as { name: string }).name]));
  const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid} ${e.tid}`, (e.args as { name: string }).name]));
  return events.filter((e) => e.ph !== 'M').map((e) => [e.name, e.ph, e.cat, e.ts - T0 * 1000, e.dur, processes.get(e.pid), e.ph === 'X' ? threads.get(`${e.pid} ${e.tid}`) : e.tid, JSON.parse(JSON.stringify(e.args ?? {}))]);
}

describe('Perfetto detail of a clicked slice or instant', () => {
  it('a fault or finding instant carries what its record says: a Retry-After its seconds, a watchdog its silence, a conflict the side kept', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'retry-after', name: 'pods', during: 'watch', seconds: 2, attempt: 1, code: 429 }],
      [1, { stage: 'reflector', op: 'watchdog', name: 'pods', conn: 3, silentMs: 30_000, events: 4 }],
      [2, { stage: 'reflector', op: 'backoff', name: 'pods', ms: 800, next: 'watch', reason: 'watch-error' }],
      [3, { stage: 'endpoint', op: 'conflict', key: 'ns/a', rv: '7', resource: 'configmaps', upstream: 'updated', local: 'modified', kept: 'local' }],
      [4, { stage: 'endpoint', op: 'stall', client: 'k', resource: 'pods', idleMs: 60_000, note: 'k\'s watch of pods received no event and no bookmark for 60s' }],
    ]);
    const [retry, watchdog, backoff, conflict, stall] = rows.map((r) => r.id);
    expect(picture(rows).map((e) => [e[0], e[7]])).toEqual([
      ['retry-after', { id: retry, name: 'pods', during: 'watch', seconds: 2, attempt: 1, code: 429 }],
      ['watchdog', { id: watchdog, name: 'pods', conn: 3, silentMs: 30_000, events: 4 }],
      ['backoff', { id: backoff, name: 'pods', ms: 800, next: 'watch', reason: 'watch-error' }],
      ['conflict', { id: conflict, key: 'ns/a', rv: '7', resource: 'configmaps', upstream: 'updated', local: 'modified', kept: 'local' }],
      ['stall', { id: stall, client: 'k', resource: 'pods', idleMs: 60_000, note: 'k\'s watch of pods received no event and no bookmark for 60s' }],
    ]);
  });
});

describe('Perfetto picture of one record of each op', () => {
  it('names, phases, categories, µs times and durations, processes, threads and the args a click shows', () => {
    const rows = trace([
      [0, { stage: 'http', op: 'request', method: 'GET', url: 'https://k/api/v1/pods?limit=500' }],
      [3, { stage: 'http', op: 'response', method: 'GET', url: 'https://k/api/v1/pods?limit=500', status: 200, ms: 3, bytes: 900, conn: 1 }],
      [3, { stage: 'reflector', op: 'list-page', name: 'pods', page: 1, items: 3, bytes: 900, rv: '10', ms: 2.5 }],
      [4, { stage: 'reflector', op: 'list-error', name: 'pods', rv: '10', during: 'list', error: 'boom' }],
      [5, { stage: 'reflector', op: 'watch-start', name: 'pods', conn: 1, rv: '10', timeoutSeconds: 300 }],
      [6, { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '11', name: 'pods' }],
      [7, { stage: 'watch', op: 'DELETED', key: 'ns/a', rv: '12', name: 'pods' }],
      [8, { stage: 'watch', op: 'BOOKMARK', rv: '13', name: 'pods' }],
      [9, { stage: 'reflector', op: 'very-short-watch', name: 'pods', conn: 1, ms: 4, error: 'eof' }],
      [9, { stage: 'reflector', op: 'watch-close', name: 'pods', conn: 1, reason: 'very-short-watch', events: 2, ms: 4 }],
      [10, { stage: 'reflector', op: 'watch-start', name: 'pods', conn: 2, rv: '13', watchList: true }],
      [12, { stage: 'reflector', op: 'initial-events-end', name: 'pods', conn: 2, rv: '14', events: 1, ms: 2 }],
      [13, { stage: 'reflector', op: 'stopped', name: 'pods' }],
      [14, { stage: 'fifo', op: 'Deleted', key: 'ns/b', rv: '9', tombstone: true, tombstoneType: 'DeletedFinalStateUnknown', tombstoneExplanation: 'gone in the relist', depth: 0 }],
      [15, { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' }],
      [16, { stage: 'reconcile', op: 'requeue', key: 'ns/a', controller: 'c' }],
      [17, { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' }],
      [18, { stage: 'reconcile', op: 'end', key: 'ns/a', controller: 'c' }],
      [19, { stage: 'endpoint', op: 'list', client: 'k', resource: 'configmaps', key: 'ns', rv: '20', items: 2 }],
      [20, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns', rv: '20', event: 'start' }],
      [21, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns', rv: '21', event: 'BOOKMARK' }],
      [22, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns', event: 'ERROR', code: 500, error: 'internal error' }],
      [23, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns', event: 'close', reason: 'eof' }],
      [24, { stage: 'endpoint', op: 'http', client: 'k', method: 'PUT', path: '/api/v1/namespaces/ns/configmaps/a', ms: 2, status: 200 }],
      [25, { stage: 'endpoint', op: 'relist', client: 'k', key: 'ns', resource: 'configmaps', reason: 'expired' }],
      [26, { stage: 'endpoint', op: 'loop', client: 'k', key: 'ns/a', resource: 'configmaps', rounds: 3, fields: ['data.x'], note: 'k rewrote ns/a 3 times' }],
      [27, { stage: 'endpoint', op: 'fault', client: 'k', key: 'ns/a', resource: 'configmaps', fault: 'drop' }],
    ]);
    const id = (i: number) => rows[i].id;
    expect(picture(rows)).toEqual([
      // Slices, by start: a request and a list page end at their record and last its ms; a watch from its start to its
      // end record (the same millisecond's record 1 µs later); an event 1 µs; a reconcile to its requeue or end.
      ['GET https://k/api/v1/pods', 'X', 'http', 0, 3000, 'http', 'request 1', { id: id(1), status: 200, bytes: 900, url: 'https://k/api/v1/pods?limit=500' }],
      ['LIST pods page 1', 'X', 'list', 3001 - 2500, 2500, 'reflector', 'list 1', { id: id(2), items: 3, bytes: 900, rv: '10' }],
      ['WATCH pods conn 1', 'X', 'watch', 5000, 4001, 'reflector', 'watch pods 1', { id: id(4), end: 'watch-close', reason: 'very-short-watch' }],
      ['ADDED ns/a', 'X', 'event', 6000, 1, 'watch', 'event 1', { id: id(5), key: 'ns/a', rv: '11' }],
      ['DELETED ns/a', 'X', 'event', 7000, 1, 'watch', 'event 1', { id: id(6), key: 'ns/a', rv: '12' }],
      ['WATCH-LIST pods initial events', 'X', 'list', 10_000, 2000, 'reflector', 'list 1', { id: id(11), events: 1, rv: '14' }],
      ['WATCH pods conn 2', 'X', 'watch', 10_000, 3000, 'reflector', 'watch pods 1', { id: id(10), end: 'stopped' }],
      ['reconcile ns/a', 'X', 'reconcile', 15_000, 1000, 'reconcile', 'reconcile 1', { id: id(14), result: 'requeue' }],
      ['reconcile ns/a', 'X', 'reconcile', 17_000, 1000, 'reconcile', 'reconcile 1', { id: id(16), result: 'end' }],
      ['LIST configmaps', 'X', 'list', 18_999, 1, 'client k', 'list 1', { id: id(18), items: 2, rv: '20' }],
      ['WATCH configmaps', 'X', 'watch', 20_000, 3000, 'client k', 'watch configmaps 1', { id: id(19), reason: 'eof' }],
      ['PUT /api/v1/namespaces/ns/configmaps/a', 'X', 'http', 22_000, 2000, 'client k', 'request 1', { id: id(23), status: 200 }],
      // Instants (thread-scoped, on their process's tid 0), in record order.
      ['list-error', 'i', 'fault', 4000, undefined, 'reflector', 0, { id: id(3), rv: '10', name: 'pods', during: 'list', error: 'boom' }],
      ['BOOKMARK', 'i', 'bookmark', 8000, undefined, 'watch', 0, { id: id(7), rv: '13' }],
      ['very-short-watch', 'i', 'fault', 9000, undefined, 'reflector', 0, { id: id(8), name: 'pods', conn: 1, ms: 4, error: 'eof' }],
      ['tombstone ns/b', 'i', 'relist', 14_000, undefined, 'reflector', 0, { id: id(13), key: 'ns/b', rv: '9', tombstoneType: 'DeletedFinalStateUnknown', tombstoneExplanation: 'gone in the relist' }],
      ['BOOKMARK', 'i', 'bookmark', 21_000, undefined, 'client k', 0, { id: id(20), key: 'ns', rv: '21' }],
      ['500 ERROR', 'i', 'fault', 22_000, undefined, 'client k', 0, { id: id(21), key: 'ns', error: 'internal error' }],
      ['relist', 'i', 'relist', 25_000, undefined, 'client k', 0, { id: id(24), key: 'ns', client: 'k', resource: 'configmaps', reason: 'expired' }],
      ['loop', 'i', 'finding', 26_000, undefined, 'client k', 0, { id: id(25), key: 'ns/a', client: 'k', resource: 'configmaps', rounds: 3, fields: ['data.x'], note: 'k rewrote ns/a 3 times' }],
      ['fault', 'i', 'finding', 27_000, undefined, 'client k', 0, { id: id(26), key: 'ns/a', client: 'k', resource: 'configmaps', fault: 'drop' }],
      // Counters.
      ['fifo depth', 'C', undefined, 14_000, undefined, 'fifo', 0, { depth: 0 }],
      ['events/s', 'C', undefined, 0, undefined, 'watch', 0, { events: 2 }],
    ]);
  });
});
