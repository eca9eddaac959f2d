// What the HTML report draws (report-model.ts): lanes per key and per watch, each mark's kind and words, the arrows
// write → echo → the write that echo triggered, the summary and the verdict, and the budget past 10,000 marks.
import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { buildReportModel, MAX_MARKS } from '../../src/trace-export/report-model.js';
import { isWrite } from '../../src/trace-export/trace-rows.js';
import { recordRun, stamper, writesDone } from './recorded-runs.js';
import { T0, trace } from './chosen-records.js';



describe('the report of a recorded reconcile run', () => {
  it('a loop: each write\'s echo marked own, an arrow write → echo and echo → the write it triggered, the loop found', async () => {
    const rows = await recordRun({ c: stamper(4) }, writesDone(4, 5));
    const model = buildReportModel(rows, 'loop');
    const writes = rows.filter(isWrite);
    const echoes = writes.map((w) => rows.find((r) => r.stage === 'watch' && r.echoOf === w.id)!);
    const lane = model.lanes.find((l) => l.id === 'ns/web')!;
    expect(lane.kind).toBe('key');
    expect(lane.marks.filter((m) => m.kind === 'write').map((m) => [m.id, m.label, m.client, m.detail])).toEqual(writes.map((w, i) => [w.id, 'patch', 'c', `c apply: ${i === 0 ? 'metadata.annotations' : 'metadata.annotations.stamp'}`]));
    expect(lane.marks.filter((m) => m.kind.startsWith('event')).map((m) => [m.id, m.kind, m.label, m.detail, m.t])).toEqual(echoes.map((e, i) => [e.id, 'event-own', `MODIFIED@${1002 + i}`, `echo of write #${writes[i].id} by c`, e.time]));
    expect(lane.marks.filter((m) => m.kind === 'reconcile')).toHaveLength(5);
    expect(model.arrows).toEqual(writes.flatMap((w, i) => [{ from: w.id, to: echoes[i].id, kind: 'echo' }, ...(i < 3 ? [{ from: echoes[i].id, to: writes[i + 1].id, kind: 'trigger' }] : [])]));
    expect(model.findings.map((f) => f.kind)).toEqual(['loop']);
    expect(model.verdict).toBe('1 loop');
    expect(Object.fromEntries(model.summary)).toMatchObject({ records: rows.length, keys: 1, 'watch events': 4, reconciles: 5, writes: 4, '409 Conflict': 0, '410 Gone': 0, relists: 0, findings: 1 });
    expect(model.start).toBe(rows[0].time);
    expect(model.end).toBe(rows.at(-1)!.time);
    expect(model.aggregates).toEqual([{ key: 'ns/web', events: 4, writes: 4, conflicts: 0, reconciles: 5, writers: ['c'] }]);
    const watch = model.lanes.find((l) => l.kind === 'watch')!;
    expect(watch.id).toBe('watch deployments.apps');
    expect(watch.marks.map((m) => [m.kind, m.label, m.detail])).toEqual([['list', 'list', '1 items, 250 bytes'], ['watch-start', 'watch from 1001', undefined]]);
    expect(model.truncated).toBeUndefined();
  });

  it('a quiet run: no finding, the verdict says so', async () => {
    const rows = await recordRun({ c: stamper(1) }, writesDone(1, 2));
    expect(buildReportModel(rows, 'quiet')).toMatchObject({ verdict: 'no loop, fight or stall found', findings: [], title: 'quiet' });
  });
});

describe('the report of a client\'s wire (--exec, proxy)', () => {
  const ev = (client: string, event: string, rv: string, key = 'ns/a'): Omit<TraceRecord, 'time'> => ({ stage: 'endpoint', op: 'watch', client, resource: 'configmaps', key, rv, event });
  // Built in each test, not when the file is collected: a mutation tool counts only what a test runs.
  const wire = () => trace([
    [0, { stage: 'endpoint', op: 'watch', client: 'a', resource: 'configmaps', event: 'start', rv: '1' }],
    [1, { stage: 'endpoint', op: 'list', client: 'b', resource: 'configmaps', items: 2 }],
    [2, ev('a', 'ADDED', '2')],
    [3, { stage: 'endpoint', op: 'write', client: 'a', resource: 'configmaps', key: 'ns/a', rv: '3', code: 200, verb: 'patch', mode: 'overlay', changed: ['data.x'], after: ['ADDED configmaps ns/a@2'] }],
    [4, ev('a', 'MODIFIED', '3')],
    [5, ev('b', 'MODIFIED', '3')],
    [6, { stage: 'endpoint', op: 'write', client: 'b', resource: 'configmaps', key: 'ns/a', rv: '3', code: 409, verb: 'update', error: 'conflict' }],
    [7, { stage: 'endpoint', op: 'write', client: 'b', resource: 'configmaps', key: 'ns/a', code: 422, verb: 'update', error: 'invalid' }],
    [2007, { stage: 'endpoint', op: 'watch', client: 'a', resource: 'configmaps', event: 'close', reason: 'eof' }],
    [4507, { stage: 'endpoint', op: 'watch', client: 'a', resource: 'configmaps', event: 'start', rv: '3' }],
    [4508, { stage: 'endpoint', op: 'watch', client: 'a', resource: 'configmaps', event: 'ERROR', code: 410 }],
    [4509, { stage: 'endpoint', op: 'relist', client: 'a', resource: 'configmaps', reason: 'expired' }],
  ]);

  it('events: the writer\'s own echo, another client\'s write, a change from outside', () => {
    const rows = wire();
    const model = buildReportModel(rows, 'wire');
    const marks = model.lanes.find((l) => l.id === 'ns/a')!.marks;
    expect(marks.filter((m) => m.kind.startsWith('event')).map((m) => [m.kind, m.client, m.detail])).toEqual([
      ['event-upstream', 'a', 'a change from outside'],
      ['event-own', 'a', `echo of write #${rows[3].id} by a`],
      ['event-other', 'b', `echo of write #${rows[3].id} by a`],
    ]);
    expect(marks.filter((m) => m.kind.startsWith('write') || m.kind === 'conflict').map((m) => [m.kind, m.label, m.detail])).toEqual([
      ['write', 'patch 200', 'a overlay: data.x'],
      ['conflict', 'update 409', 'b  — conflict'],
      ['write-failed', 'update 422', 'b  — invalid'],
    ]);
    expect(model.arrows).toEqual([
      { from: rows[2].id, to: rows[3].id, kind: 'trigger' },
      { from: rows[3].id, to: rows[4].id, kind: 'echo' },
      { from: rows[3].id, to: rows[5].id, kind: 'echo' },
    ]);
    expect(model.aggregates).toEqual([{ key: 'ns/a', events: 3, writes: 3, conflicts: 1, reconciles: 0, writers: ['a', 'b'] }]);
  });

  it('watch lanes per client: starts (and how long the watch was down), closes, lists, 410s, relists', () => {
    const model = buildReportModel(wire(), 'wire');
    expect(model.lanes.filter((l) => l.kind === 'watch').map((l) => [l.id, l.marks.map((m) => [m.kind, m.label, m.detail])])).toEqual([
      ['a · configmaps', [['watch-start', 'watch from 1', undefined], ['watch-close', 'watch closed', 'eof'], ['watch-start', 'watch from 3', 'down for 2.5s'], ['gone', '410 Gone', 'resourceVersion  expired'], ['relist', 'relist', 'expired']]],
      ['b · configmaps', [['list', 'list', '2 items']]],
    ]);
    expect(Object.fromEntries(model.summary)).toMatchObject({ '409 Conflict': 1, '410 Gone': 1, relists: 1, 'watch events': 3, writes: 3, keys: 1, span: `4.5s from ${new Date(T0).toISOString()}` });
    expect(model.verdict).toBe('1 stale-write');
  });
});

describe('past 10,000 marks', () => {
  it('keys with findings first, then the busiest, the last lane cut to the budget; every key in the table', () => {
    const records: [number, Omit<TraceRecord, 'time'>][] = [];
    let t = 0;
    const upstream = (key: string, n: number) => { for (let i = 0; i < n; i++) records.push([t++, { stage: 'watch', op: 'MODIFIED', key, rv: String(t), name: 'pods' }]); };
    upstream('ns/busy', 9000);
    // ns/mid begins with a write and its echo: both are cut from its lane, and so is the arrow between them.
    records.push([t++, { stage: 'endpoint', op: 'write', client: 'k', key: 'ns/mid', rv: 'w1', code: 200, resource: 'pods' }]);
    records.push([t++, { stage: 'watch', op: 'MODIFIED', key: 'ns/mid', rv: 'w1', name: 'pods' }]);
    upstream('ns/mid', 1498);
    upstream('ns/small', 50);
    records.push([t++, { stage: 'endpoint', op: 'write', client: 'k', key: 'ns/flagged', rv: '1', code: 409, resource: 'pods' }]);
    const model = buildReportModel(trace(records), 'big');
    expect(model.lanes.map((l) => [l.label, l.marks.length])).toEqual([['ns/flagged', 1], ['ns/busy', 9000], [`ns/mid (last ${MAX_MARKS - 9001} of 1500)`, MAX_MARKS - 9001]]);
    expect(model.lanes[2].marks.at(-1)!.label).toBe(`MODIFIED@${9000 + 1500}`);
    expect(model.truncated).toBe('10551 marks: the lanes show 3 of 4 (keys with findings first, then the busiest); every key is in the table below');
    expect(model.aggregates.map((a) => a.key)).toEqual(['ns/mid', 'ns/flagged', 'ns/busy', 'ns/small']);
    expect(model.arrows).toEqual([]);
  });

  it('a lane that fits the budget exactly is kept whole; past the budget the rest are in the table only', () => {
    const records: [number, Omit<TraceRecord, 'time'>][] = [];
    let t = 0;
    const upstream = (key: string, n: number) => { for (let i = 0; i < n; i++) records.push([t++, { stage: 'watch', op: 'MODIFIED', key, rv: String(t), name: 'pods' }]); };
    upstream('ns/small', 50);
    upstream('ns/busy', MAX_MARKS - 1);
    records.push([t++, { stage: 'endpoint', op: 'write', client: 'k', key: 'ns/flagged', rv: '1', code: 409, resource: 'pods' }]);
    const model = buildReportModel(trace(records), 'exact');
    expect(model.lanes.map((l) => [l.label, l.marks.length])).toEqual([['ns/flagged', 1], ['ns/busy', MAX_MARKS - 1]]);
    expect(model.aggregates.map((a) => [a.key, a.events, a.writes])).toEqual([['ns/flagged', 0, 1], ['ns/busy', MAX_MARKS - 1, 0], ['ns/small', 50, 0]]);
  });
});

describe('the report of an informer\'s watch', () => {
  it('closes and errors, 410s, relists and the tombstones only the reflector\'s relist delivered', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '1' }],
      [1, { stage: 'reflector', op: 'watch-close', name: 'pods', reason: 'timeout' }],
      [2, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '4' }],
      [3, { stage: 'reflector', op: 'watch-error', name: 'pods', error: 'reset by peer' }],
      [4, { stage: 'reflector', op: 'expired', name: 'pods', rv: '4' }],
      [5, { stage: 'reflector', op: 'expired', name: 'pods', rv: '4', error: 'too old resource version: 4 (9)' }],
      [6, { stage: 'endpoint', op: 'relist', client: 'k', resource: 'pods', reason: 'gone' }],
      [7, { stage: 'fifo', op: 'Deleted', key: 'ns/early', rv: '3', tombstone: true }],
      [8, { stage: 'reflector', op: 'relist', name: 'pods' }],
      [9, { stage: 'fifo', op: 'Deleted', key: 'ns/a', rv: '3', tombstone: true }],
      [10, { stage: 'fifo', op: 'Deleted', key: 'ns/b', rv: '3' }],
      [11, { stage: 'reconcile', op: 'start', controller: 'c' }],
    ]);
    const model = buildReportModel(rows, 'informer');
    expect(model.lanes.map((l) => [l.id, l.marks.map((m) => [m.kind, m.label, m.detail])])).toEqual([
      ['watch pods', [['watch-start', 'watch from 1', undefined], ['watch-close', 'watch closed', 'timeout'], ['watch-start', 'watch from 4', 'down for 0.0s'], ['watch-close', 'watch error', 'reset by peer'],
        ['gone', '410 Gone', 'resourceVersion 4 expired'], ['gone', '410 Gone', 'too old resource version: 4 (9)'], ['relist', 'relist', 'delivered 1 tombstone'], ['tombstone', 'tombstone ns/a', undefined]]],
      ['k · pods', [['relist', 'relist', 'gone']]],
    ]);
    expect(Object.fromEntries(model.summary)).toMatchObject({ '410 Gone': 2, relists: 2, reconciles: 0, keys: 0 });
  });

  it('lanes by key in order; the verdict counts each kind of finding', () => {
    const rows = trace([
      [0, { stage: 'watch', op: 'ADDED', key: 'ns/b', rv: '1', name: 'pods' }],
      [1, { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '2', name: 'pods' }],
      [2, { stage: 'endpoint', op: 'write', client: 'k', key: 'ns/a', rv: '2', code: 409, resource: 'pods' }],
      [3, { stage: 'endpoint', op: 'write', client: 'k', key: 'ns/b', rv: '1', code: 409, resource: 'pods' }],
      [4, { stage: 'endpoint', op: 'stall', client: 'k', resource: 'pods' }],
    ]);
    const model = buildReportModel(rows, 'order');
    expect(model.lanes.map((l) => l.id)).toEqual(['ns/a', 'ns/b']);
    expect(model.verdict).toBe('2 stale-writes, 1 stall');
  });
});
