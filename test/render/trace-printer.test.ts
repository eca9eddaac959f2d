import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { TraceRecord } from '../../src/informer/trace.js';
import { createTracePrinter, parseStages, shouldColor, traceRecordToJSON, type TracePrinterOptions } from '../../src/render/trace-printer.js';

const T0 = Date.UTC(2026, 10, 25, 23, 40, 1, 123);

function capture(opts: Omit<TracePrinterOptions, 'stream'>, records: TraceRecord[]): string {
  let out = '';
  const p = createTracePrinter({ ...opts, stream: { write: (s: string) => (out += s) } });
  for (const r of records) p.write(r);
  p.end();
  return out;
}

const pod = (phase: string, rv: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'nginx-1', namespace: 'default', resourceVersion: rv },
  status: { phase },
});

const RECORDS: TraceRecord[] = [
  { time: T0, stage: 'reflector', op: 'listed', rv: '100', pages: 3, items: 1200, bytes: 7_100_000, ms: 180 },
  { time: T0 + 1, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: 'default/nginx-1', rv: '101', bytes: 900, object: pod('Running', '101') },
  { time: T0 + 2, stage: 'fifo', op: 'Updated', key: 'default/nginx-1', rv: '101', deltas: ['Updated', 'Updated'] },
  { time: T0 + 3, stage: 'indexer', op: 'update', key: 'default/nginx-1', rv: '101' },
  { time: T0 + 4, stage: 'http', op: 'request', method: 'GET', url: '/api/v1/pods?watch=1' },
  { time: T0 + 5, stage: 'reflector', op: 'bookmark', rv: '102' },
  { time: T0 + 6, stage: 'reflector', op: 'watch-start', rv: '102', conn: 2, timeoutSeconds: 412 },
  { time: T0 + 7, stage: 'workqueue', op: 'add', key: 'default/nginx-1', depth: 4 },
  { time: T0 + 8, stage: 'reconcile', op: 'success', key: 'default/nginx-1' },
  { time: T0 + 9, stage: 'watch', op: 'DELETED', type: 'DELETED', key: 'default/nginx-1', rv: '103' },
];

const ROW = (out: string, i: number) => out.split('\n')[i].split(/\s+/);

describe('table output: long keys', () => {
  it('a key longer than the KEY column moves RV and DETAIL once, for every line from it on, instead of pushing its own line out of line', () => {
    const long = 'default/orders-sync-gnfnlwrsd4-w4wx8-with-a-long-suffix';
    const recs: TraceRecord[] = [long, 'default/web-0', long, 'kube-system/coredns-x'].map((key, i) => ({ time: 1_700_000_000_000 + i, stage: 'watch', op: 'MODIFIED', key, rv: '1234', type: 'MODIFIED', conn: 1 }));
    const lines = capture({ output: 'table' }, recs).trimEnd().split('\n');
    const rvAt = lines.slice(1).map((l) => l.indexOf('1234'));
    const detailAt = lines.slice(1).map((l) => l.indexOf('conn=1'));
    expect(new Set(rvAt).size).toBe(1);
    expect(new Set(detailAt).size).toBe(1);
    expect(lines[0].indexOf('RV')).toBe(rvAt[0]);
    expect(rvAt[0]).toBeGreaterThan(lines[1].indexOf(long) + long.length);
  });
});

describe('table output', () => {
  const out = capture({ output: 'table' }, RECORDS);
  const lines = out.trimEnd().split('\n');

  it('keeps the RV column in place when an op is longer than its column (initial-events-end, no key)', () => {
    const text = capture({ output: 'table', stages: parseStages('all') }, [
      { time: T0, stage: 'reflector', op: 'initial-events-end', rv: '250', events: 3, ms: 4 },
      { time: T0 + 1, stage: 'watch', op: 'ADDED', type: 'ADDED', key: 'default/nginx-1', rv: '251' },
    ]);
    const [header, end, added] = text.trimEnd().split('\n');
    expect(end.indexOf('250')).toBe(header.indexOf('RV'));
    expect(added.indexOf('251')).toBe(header.indexOf('RV'));
    expect(end.indexOf('initial-events-end')).toBe(header.indexOf('OP'));
  });

  it('prints the header TIME STAGE OP KEY RV DETAIL once', () => {
    expect(lines[0].split(/\s+/)).toEqual(['TIME', 'STAGE', 'OP', 'KEY', 'RV', 'DETAIL']);
    expect(lines.filter((l) => l.startsWith('TIME'))).toHaveLength(1);
  });

  it('aligns each column under its header', () => {
    for (const h of ['STAGE', 'OP', 'KEY', 'RV', 'DETAIL']) {
      const col = lines[0].indexOf(h);
      expect(lines[2][col - 1]).toBe(' ');
      expect(lines[2][col]).not.toBe(' ');
    }
    expect(lines[2].slice(lines[0].indexOf('KEY')).startsWith('default/nginx-1')).toBe(true);
  });

  it('prints TIME as local HH:MM:SS.mmm', () => {
    expect(ROW(out, 1)[0]).toMatch(/^\d\d:\d\d:\d\d\.123$/);
  });

  it('summarises the remaining fields as k=v in DETAIL', () => {
    expect(lines[1]).toMatch(/ listed +100 +pages=3 items=1200 bytes=7.1MB ms=180$/);
    expect(lines[3]).toMatch(/deltas=Updated,Updated$/);
    expect(out).toMatch(/watch-start +102 +conn=2 timeout=412s\n/);
  });

  it('leaves whole objects out of DETAIL', () => {
    expect(lines[2]).toMatch(/MODIFIED +default\/nginx-1 +101 +bytes=900B$/);
  });

  it('lets a long key push the following columns instead of cutting it', () => {
    const key = 'a-very-long-namespace-name/an-even-longer-object-name-0001';
    const o = capture({ output: 'table' }, [{ time: T0, stage: 'watch', op: 'ADDED', type: 'ADDED', key, rv: '7' }]);
    expect(o.split('\n')[1]).toContain(`${key}  7`);
  });

  it('writes no ANSI codes without colour', () => {
    expect(out).not.toContain('\x1b[');
  });

  it('colours the stage and the op when asked: DELETED red, MODIFIED yellow', () => {
    const c = capture({ output: 'table', color: true }, RECORDS);
    expect(c).toContain('\x1b[31mDELETED\x1b[0m');
    expect(c).toContain('\x1b[33mMODIFIED\x1b[0m');
    expect(c).toContain('\x1b[36mwatch\x1b[0m');
  });

  it('prints the endpoint\'s question records (TokenRequests, reviews) on one line, the op in yellow', () => {
    const q: TraceRecord = { time: T0, stage: 'endpoint', op: 'question', key: 'default/builder', client: 'manager', verb: 'create', resource: 'serviceaccounts', subresource: 'token', mode: 'intercept', code: 201, note: 'a ServiceAccount token minted by the target, in every --writes mode' };
    const plain = capture({ output: 'table', stages: 'all' }, [q]).trimEnd().split('\n');
    expect(plain[1]).toMatch(/^23:40:01\.123\s+endpoint\s+question\s+default\/builder\s+client=manager verb=create resource=serviceaccounts subresource=token mode=intercept code=201 note=/);
    expect(capture({ output: 'table', color: true, stages: 'all' }, [q])).toContain('\x1b[33mquestion\x1b[0m');
  });

  it('prints RFC 3339 times with timeFormat iso', () => {
    expect(ROW(capture({ output: 'table', timeFormat: 'iso' }, RECORDS), 1)[0]).toBe('2026-11-25T23:40:01.123Z');
  });
});

describe('wide output', () => {
  it('adds CONN, DEPTH and INDEX columns and takes their fields out of DETAIL', () => {
    const out = capture({ output: 'wide' }, [
      ...RECORDS,
      { time: T0, stage: 'handler', op: 'OnUpdate', key: 'default/nginx-1', index: { nodeName: ['node-1'] } },
    ]);
    const lines = out.trimEnd().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['TIME', 'STAGE', 'OP', 'KEY', 'RV', 'CONN', 'DEPTH', 'INDEX', 'DETAIL']);
    expect(out).toMatch(/watch-start +102 +2 +timeout=412s\n/);
    expect(out).toMatch(/ add +default\/nginx-1 +4\n/);
    expect(out).toMatch(/OnUpdate +default\/nginx-1 +nodeName=node-1$/m);
  });
});

describe('ndjson output (the contract)', () => {
  const lines = capture({ output: 'ndjson' }, RECORDS).trimEnd().split('\n');
  const objs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  it('prints one JSON object per record with time, stage, op, key, rv first', () => {
    expect(Object.keys(objs[0]).slice(0, 5)).toEqual(['time', 'stage', 'op', 'key', 'rv']);
    expect(Object.keys(objs[1]).slice(0, 6)).toEqual(['time', 'stage', 'op', 'key', 'rv', 'type']);
    expect(objs[1]).toMatchObject({ stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: 'default/nginx-1', rv: '101', bytes: 900 });
  });

  it('prints time as RFC 3339 UTC with milliseconds', () => {
    expect(objs[0].time).toBe('2026-11-25T23:40:01.123Z');
    for (const o of objs) expect(o.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('writes null for a missing key or rv rather than leaving the field out', () => {
    expect(objs[0].key).toBeNull();
  });

  it('drops objects unless includeObjects', () => {
    expect(objs[1]).not.toHaveProperty('object');
    const kept = JSON.parse(capture({ output: 'ndjson', includeObjects: true }, [RECORDS[1]]));
    expect(kept.object.status.phase).toBe('Running');
  });

  it('turns Error details into their message', () => {
    expect(traceRecordToJSON({ time: T0, stage: 'reflector', op: 'watch-error', error: new Error('boom') }).error).toBe('boom');
  });

  it('adds the field diff of old and new objects with diff on', () => {
    const r: TraceRecord = { time: T0, stage: 'handler', op: 'OnUpdate', key: 'default/nginx-1', old: pod('Pending', '100'), new: pod('Running', '101') };
    expect(JSON.parse(capture({ output: 'ndjson', diff: 'changed' }, [r])).diff).toEqual([{ path: 'status.phase', old: 'Pending', new: 'Running' }]);
    expect(capture({ output: 'table', diff: 'changed' }, [r])).toContain('\n    status.phase: Pending → Running\n');
  });
});

describe('json, yaml and name output', () => {
  it('json streams one pretty array of all records', () => {
    const out = capture({ output: 'json' }, RECORDS);
    expect(out.startsWith('[\n  {\n    "time"')).toBe(true);
    const arr = JSON.parse(out);
    expect(arr).toHaveLength(6); // the default stage filter applies
    expect(arr[2]).toMatchObject({ stage: 'fifo', deltas: ['Updated', 'Updated'] });
  });

  it('json prints [] when nothing was recorded', () => {
    expect(capture({ output: 'json' }, [])).toBe('[]\n');
  });

  it('yaml prints one --- separated document per record', () => {
    const docs = parseAllDocuments(capture({ output: 'yaml' }, RECORDS));
    expect(docs.map((d) => d.toJS().op)).toEqual(['listed', 'MODIFIED', 'Updated', 'watch-start', 'add', 'DELETED']);
    expect(docs[0].toJS()).toMatchObject({ time: '2026-11-25T23:40:01.123Z', stage: 'reflector', key: null, rv: '100' });
  });

  it('name prints stage/op key', () => {
    expect(capture({ output: 'name' }, RECORDS.slice(0, 2))).toBe('reflector/listed\nwatch/MODIFIED default/nginx-1\n');
  });
});

describe('stage filter', () => {
  const ops = (stages: TracePrinterOptions['stages']) =>
    capture({ output: 'name', stages }, RECORDS)
      .trimEnd()
      .split('\n')
      .map((l) => l.split(' ')[0]);

  it('shows watch, fifo, handler, workqueue and reflector lifecycle by default', () => {
    expect(ops(undefined)).toEqual(['reflector/listed', 'watch/MODIFIED', 'fifo/Updated', 'reflector/watch-start', 'workqueue/add', 'watch/DELETED']);
  });

  it('shows every stage with all, including indexer and http', () => {
    expect(ops('all')).toHaveLength(RECORDS.length);
  });

  it('shows every op of the named stages', () => {
    expect(ops(parseStages('reflector,indexer'))).toEqual(['reflector/listed', 'indexer/update', 'reflector/bookmark', 'reflector/watch-start']);
  });

  it('shows only the named ops of a stage given as STAGE:OP (endpoint:write+relist), every op of a stage named whole', () => {
    expect(ops(parseStages('reflector:listed+watch-start'))).toEqual(['reflector/listed', 'reflector/watch-start']);
    expect(ops(parseStages('reflector:listed,reflector:bookmark,indexer'))).toEqual(['reflector/listed', 'indexer/update', 'reflector/bookmark']);
    expect(ops(parseStages('reflector:listed,reflector'))).toEqual(['reflector/listed', 'indexer/update', 'reflector/bookmark', 'reflector/watch-start'].filter((x) => x.startsWith('reflector')));
    expect(() => parseStages('endpoint:')).toThrow('"endpoint:" names no op: write STAGE:OP, several joined by + (endpoint:write+relist)');
    expect(() => parseStages('wire:write')).toThrow(/^unknown stage "wire"/);
  });

  it('parseStages rejects unknown names with the list of valid stages', () => {
    expect(() => parseStages('watch,x')).toThrow(
      'unknown stage "x": valid stages are http, reflector, watch, fifo, indexer, handler, workqueue, reconcile, endpoint, all',
    );
    expect(parseStages('watch, all')).toBe('all');
  });
});

describe('shouldColor', () => {
  const tty = { isTTY: true };
  it('colours a TTY unless NO_COLOR is set or TERM is dumb', () => {
    expect(shouldColor(tty, {})).toBe(true);
    expect(shouldColor(tty, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor(tty, { TERM: 'dumb' })).toBe(false);
  });
  it('never colours a pipe unless FORCE_COLOR is set', () => {
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({}, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldColor(tty, { FORCE_COLOR: '0' })).toBe(false);
  });
});
