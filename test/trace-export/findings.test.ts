// The findings of a trace: what the HTML report lists and its verdict counts. Loops and fights from recorded
// reconcile runs; the wire's findings (periodic writers, relist storms, 410s watched again, stalls, stale writes)
// from the records the endpoint and the reflector emit, with times a test can choose.
import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { TraceIndex } from '../../src/trace-export/causal-chain.js';
import { findFindings, reactedTo } from '../../src/trace-export/findings.js';
import { isWrite } from '../../src/trace-export/trace-rows.js';
import { recordRun, stamper, writesDone } from './recorded-runs.js';
import { trace } from './chosen-records.js';



/** An endpoint write by `client`, answered 200 with a new version. */
const write = (client: string, key: string, rv: string, extra: Partial<TraceRecord> = {}): Omit<TraceRecord, 'time'> => ({ stage: 'endpoint', op: 'write', key, rv, client, verb: 'patch', resource: 'leases', code: 200, changed: ['spec.renewTime'], ...extra });

describe('loops', () => {
  it('three rounds of a controller re-triggered by its own write\'s echo are a loop; two are not', async () => {
    const three = await recordRun({ c: stamper(4) }, writesDone(4, 5));
    const writes = three.filter(isWrite);
    const [loop, ...rest] = findFindings(three);
    expect(rest).toEqual([]);
    expect(loop).toMatchObject({ kind: 'loop', key: 'ns/web', title: 'loop: c on ns/web', ids: writes.map((w) => w.id) });
    expect(loop.detail).toMatch(new RegExp(`^3 writes, each after the echo of its own previous write \\(metadata\\.annotations, metadata\\.annotations\\.stamp\\)(, \\d+\\.\\d/s)?; since write #${writes[0].id}$`));
    // Each write reacted to the one before it: write → reconcile → its echo → the earlier write.
    const index = new TraceIndex(three);
    expect(writes.map((w) => reactedTo(index, w)?.id)).toEqual([undefined, ...writes.slice(0, -1).map((w) => w.id)]);

    const two = await recordRun({ c: stamper(3) }, writesDone(3, 4));
    expect(findFindings(two)).toEqual([]);
  });

  it('an --exec client\'s loop: each write inferred to follow the echo of its own last write', () => {
    const records: [number, Omit<TraceRecord, 'time'>][] = [[0, { stage: 'endpoint', op: 'watch', key: 'ns/l', rv: '1', client: 'k', resource: 'leases', event: 'ADDED' }]];
    for (let i = 0; i < 4; i++) {
      const before = i === 0 ? 'ADDED leases ns/l@1' : `MODIFIED leases ns/l@${i + 1} (own write)`;
      records.push([10 + i * 10, write('k', 'ns/l', String(i + 2), { after: [before], trigger: 'inferred' })]);
      records.push([15 + i * 10, { stage: 'endpoint', op: 'watch', key: 'ns/l', rv: String(i + 2), client: 'k', resource: 'leases', event: 'MODIFIED' }]);
    }
    const rows = trace(records);
    const writes = rows.filter(isWrite);
    expect(findFindings(rows)).toEqual([{ kind: 'loop', key: 'ns/l', title: 'loop: k on ns/l', detail: `3 writes, each after the echo of its own previous write (spec.renewTime), 100.0/s; since write #${writes[0].id}`, ids: writes.map((w) => w.id) }]);
  });
});

describe('periodic writers', () => {
  /** `client` writes ns/l at these times (ms), nothing triggering it. */
  const writesAt = (times: number[], client = 'lease') => trace(times.map((t, i) => [t, write(client, 'ns/l', String(i + 10))]));

  it('four writes or more at a steady pace (within 15% of the median gap, 1 s or more)', () => {
    const rows = writesAt([0, 10_000, 20_500, 30_000, 40_000]);
    expect(findFindings(rows)).toEqual([{ kind: 'periodic-writer', key: 'ns/l', title: 'periodic writer: lease on ns/l', detail: '5 writes about every 10.0s, whatever the events', ids: rows.map((r) => r.id) }]);
    expect(findFindings(writesAt([0, 2000, 4000, 6000])).map((f) => f.detail)).toEqual(['4 writes about every 2.0s, whatever the events']);
    // A median of exactly 1 s, and a gap exactly 15% off it, still count.
    expect(findFindings(writesAt([0, 1000, 2000, 3000])).map((f) => f.kind)).toEqual(['periodic-writer']);
    expect(findFindings(writesAt([0, 2000, 4300, 6300, 8300])).map((f) => f.kind)).toEqual(['periodic-writer']);
    // The median of an even count is the upper middle gap: 1.1 s here, and 1.0 s is within 15% of it.
    expect(findFindings(writesAt([0, 1000, 2100, 3200, 4300])).map((f) => f.kind)).toEqual(['periodic-writer']);
  });

  it('not: three writes, gaps under a second, an uneven pace, failed writes, another writer\'s writes', () => {
    expect(findFindings(writesAt([0, 10_000, 20_000]))).toEqual([]);
    expect(findFindings(writesAt([0, 900, 1800, 2700, 3600]))).toEqual([]);
    expect(findFindings(writesAt([0, 10_000, 20_000, 30_000, 41_600]))).toEqual([]);
    expect(findFindings(writesAt([0, 10_000, 18_400, 28_400]))).toEqual([]);
    const failed = trace([0, 10_000, 20_000, 30_000].map((t, i) => [t, write('lease', 'ns/l', String(i + 10), i === 3 ? { code: 500, error: 'boom' } : {})]));
    expect(findFindings(failed)).toEqual([]);
    const two = trace([0, 10_000, 20_000, 30_000].map((t, i) => [t, write(i % 2 ? 'a' : 'b', 'ns/l', String(i + 10))]));
    expect(findFindings(two)).toEqual([]);
  });
});

describe('the wire\'s findings', () => {
  it('a relist storm: three relists of one informer within 60 s, found in any window of the run', () => {
    const relist = (t: number, reason: string, name = 'pods'): [number, Omit<TraceRecord, 'time'>] => [t, { stage: 'reflector', op: 'relist', name, reason }];
    const rows = trace([relist(0, 'expired'), relist(70_000, 'expired'), relist(100_000, 'too many'), relist(130_000, 'expired'), relist(0, 'x', 'nodes'), relist(60_001, 'x', 'nodes'), relist(120_002, 'x', 'nodes')]);
    expect(findFindings(rows)).toEqual([{ kind: 'relist-storm', title: 'relist storm: pods', detail: '4 relists, 3 within 60s (expired; too many)', ids: rows.slice(0, 4).map((r) => r.id) }]);
    const reasons = trace(['a', 'b', '', 'c', 'd'].map((reason, i) => [i, { stage: 'reflector', op: 'relist', name: 'pods', reason }]));
    expect(findFindings(reasons).map((f) => f.detail)).toEqual(['5 relists, 3 within 60s (a; b; c)']);
    // Two relists close together at the end of the run are no storm.
    expect(findFindings(trace([relist(0, 'x'), relist(100_000, 'x'), relist(101_000, 'x')]))).toEqual([]);
    const endpoint = trace([0, 1, 2].map((t) => [t, { stage: 'endpoint', op: 'relist', client: 'k', resource: 'pods' }]));
    expect(findFindings(endpoint)).toEqual([{ kind: 'relist-storm', title: 'relist storm: k pods', detail: '3 relists, 3 within 60s ()', ids: endpoint.map((r) => r.id) }]);
  });

  it('an expired resourceVersion watched again: the reflector\'s, the informer\'s ERROR event, a client\'s on the endpoint', () => {
    const reflector = trace([
      [0, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '100' }],
      [1, { stage: 'reflector', op: 'expired', name: 'pods', rv: '100' }],
      [2, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '140' }],
      [3, { stage: 'watch', op: 'ERROR', name: 'pods', code: 410 }],
      [4, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '140' }],
      [5, { stage: 'reflector', op: 'watch-start', name: 'nodes', rv: '100' }],
    ]);
    expect(findFindings(reflector)).toEqual([{ kind: 'expired-rv-watched', title: 'expired resourceVersion watched again: pods', detail: `resourceVersion 140 was answered 410 Gone (#${reflector[3].id}) and watched again (#${reflector[4].id}): relist instead`, ids: [reflector[3].id, reflector[4].id] }]);
    const client = trace([
      [0, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'start', rv: '7' }],
      [1, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'ERROR', code: 500 }],
      [2, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'start', rv: '7' }],
      [3, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', key: 'ns/a', event: 'MODIFIED', rv: '8' }],
      [4, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'ERROR', code: 410 }],
      [5, { stage: 'endpoint', op: 'watch', client: 'other', resource: 'pods', event: 'start', rv: '7' }],
      [6, { stage: 'endpoint', op: 'list', client: 'k', resource: 'pods', rv: '7' }],
      [7, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'start', rv: '7' }],
    ]);
    // A 500 is no 410; the event after the start does not change the version the watch started from; a list is no watch.
    expect(findFindings(client).map((f) => [f.title, f.ids])).toEqual([['expired resourceVersion watched again: k pods', [client[4].id, client[7].id]]]);
  });

  it('a reflector that watches again from the version it was told expired; a bookmark or a list page is no watch', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'expired', name: 'pods', rv: '50' }],
      [1, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '50' }],
      [2, { stage: 'reflector', op: 'bookmark', name: 'pods', rv: '60' }],
      [3, { stage: 'watch', op: 'ERROR', name: 'pods', code: 500 }],
      [4, { stage: 'reflector', op: 'list-page', name: 'pods', rv: '50' }],
      [5, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '60' }],
      [6, { stage: 'reflector', op: 'expired', name: 'pods' }],
      [7, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '60' }],
    ]);
    // An expired version with no watch before it is the record's own; the 500 expired nothing; the bookmark's version is
    // not the one the watch started from.
    expect(findFindings(rows).map((f) => f.ids)).toEqual([[rows[0].id, rows[1].id], [rows[6].id, rows[7].id]]);
  });

  it('fights between --exec clients: two writers in two rounds or more; one who only started it is left out', () => {
    /** Each client's write inferred to follow the echo of the write before it (the first follows the ADDED). */
    const inTurn = (writers: string[], fields = ['data.x']) => {
      const records: [number, Omit<TraceRecord, 'time'>][] = [];
      const everyone = [...new Set(writers)];
      const ev = (c: string, event: string, rv: number) => records.push([records.length, { stage: 'endpoint', op: 'watch', client: c, resource: 'configmaps', key: 'ns/a', rv: String(rv), event }]);
      for (const c of everyone) ev(c, 'ADDED', 1);
      writers.forEach((w, i) => {
        records.push([records.length, { stage: 'endpoint', op: 'write', client: w, resource: 'configmaps', key: 'ns/a', rv: String(i + 2), code: 200, changed: fields, after: [`${i === 0 ? 'ADDED' : 'MODIFIED'} configmaps ns/a@${i + 1}`] }]);
        for (const c of everyone) ev(c, 'MODIFIED', i + 2);
      });
      const rows = trace(records);
      return { rows, writes: rows.filter(isWrite), found: findFindings(rows) };
    };
    const two = inTurn(['a', 'b', 'a'], ['data.a', 'data.b', 'data.c', 'data.d', 'data.e']);
    expect(two.found).toEqual([{ kind: 'fight', key: 'ns/a', title: 'fight: a and b on ns/a', detail: '2 writes each made after the echo of the other\'s write (data.a, data.b, data.c, data.d)', ids: two.writes.map((w) => w.id) }]);
    const started = inTurn(['c', 'a', 'b', 'a', 'b']);
    expect(started.found).toEqual([{ kind: 'fight', key: 'ns/a', title: 'fight: a and b on ns/a', detail: '4 writes each made after the echo of the other\'s write (data.x)', ids: started.writes.map((w) => w.id) }]);
    expect(inTurn(['a', 'b']).found).toEqual([]);
    expect(inTurn(['a', 'b', 'c']).found).toEqual([]);
    // A loop's writes made within one millisecond: no rate; at most four fields named.
    const loop = inTurn(['a', 'a', 'a', 'a'], ['f1', 'f2', 'f3', 'f4', 'f5']);
    expect(loop.found.map((f) => f.detail)).toEqual([`3 writes, each after the echo of its own previous write (f1, f2, f3, f4), ${(3 / ((loop.writes[3].time - loop.writes[0].time) / 1000)).toFixed(1)}/s; since write #${loop.writes[0].id}`]);
    const quick = trace([0, 0, 0, 0, 0, 0, 0, 0].map((_, i) => [0, i % 2 === 0 ? { stage: 'endpoint', op: 'write', client: 'a', resource: 'configmaps', key: 'ns/b', rv: String(i + 2), code: 200, changed: ['data.x'], ...(i ? { after: [`MODIFIED configmaps ns/b@${i}`] } : {}) } : { stage: 'endpoint', op: 'watch', client: 'a', resource: 'configmaps', key: 'ns/b', rv: String(i + 1), event: 'MODIFIED' }]));
    expect(findFindings(quick).map((f) => f.detail)).toEqual([`3 writes, each after the echo of its own previous write (data.x); since write #${quick[0].id}`]);
  });

  it('stalls, stale reads and writes, 409s: one finding each, with the endpoint\'s note or words of their own', () => {
    const rows = trace([
      [0, { stage: 'endpoint', op: 'stall', client: 'k', resource: 'pods', note: 'no event for 30s' }],
      [1, { stage: 'reflector', op: 'watchdog', name: 'pods' }],
      [2, { stage: 'reflector', op: 'watchdog', name: 'nodes', reason: 'quiet' }],
      [3, { stage: 'endpoint', op: 'stale-read', client: 'k', key: 'ns/a', rv: '5', ownWrite: '7' }],
      [4, { stage: 'endpoint', op: 'stale-write', client: 'k', key: 'ns/a', rv: '5', newest: '9' }],
      [5, write('k', 'ns/a', '5', { code: 409 })],
      [6, write('k', 'ns/a', '5', { code: 409, error: 'the object has been modified' })],
      [7, { stage: 'endpoint', op: 'stale-write', client: 'k', key: 'ns/b', note: 'from the cache' }],
    ]);
    expect(findFindings(rows).map(({ kind, key, title, detail, ids }) => [kind, key, title, detail, ids[0]])).toEqual([
      ['stall', undefined, 'stall: k watching pods', 'no event for 30s', rows[0].id],
      ['stall', undefined, 'stall: the watch of pods went quiet', 'no event and no bookmark', rows[1].id],
      ['stall', undefined, 'stall: the watch of nodes went quiet', 'quiet', rows[2].id],
      ['stale-read', 'ns/a', 'stale read: k on ns/a', 'wrote from resourceVersion 5, older than its own write at 7', rows[3].id],
      ['stale-write', 'ns/a', 'stale write: k on ns/a', 'wrote from resourceVersion 5, newest sent 9', rows[4].id],
      ['stale-write', 'ns/a', '409 Conflict: k on ns/a', 'the write carried an outdated resourceVersion', rows[5].id],
      ['stale-write', 'ns/a', '409 Conflict: k on ns/a', 'the object has been modified', rows[6].id],
      ['stale-write', 'ns/b', 'stale write: k on ns/b', 'from the cache', rows[7].id],
    ]);
  });
});
