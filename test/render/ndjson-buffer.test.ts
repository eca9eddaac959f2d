import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { TraceRecord } from '../../src/informer/trace.js';
import { createTracePrinter, traceRecordToJSON } from '../../src/render/trace-printer.js';

// `-o ndjson` lines are written straight into bytes (src/render/ndjson-buffer.ts); users' scripts parse them,
// so the bytes must stay those of JSON.stringify of the record's JSON form, field order included.
const T0 = Date.UTC(2026, 10, 26, 13, 15, 37, 515);
const key = 'auth/alerts-api-2430-9prw29gnjm-46rq2';
class Boom extends Error {}

/** Records as the pipeline's producers emit them, and the odd shapes a detail field can take. */
const RECORDS: TraceRecord[] = [
  { time: T0, stage: 'reflector', op: 'watch-start', name: 'pods', conn: 1, rv: '1000000', timeoutSeconds: 412, allowWatchBookmarks: true },
  { time: T0, stage: 'watch', op: 'MODIFIED', key, rv: '1000004', type: 'MODIFIED', name: 'pods', bytes: 6627, conn: 1 },
  { time: T0, stage: 'fifo', op: 'Updated', key, rv: '1000004', tombstone: undefined, depth: 1, fifo: 'real' },
  { time: T0, stage: 'fifo', op: 'pop', key, rv: '1000004', deltas: 1, types: ['Updated'], isInInitialList: false, depth: 0, fifo: 'real' },
  { time: T0 + 1, stage: 'indexer', op: 'update', key, rv: '1000004', oldRv: '999', indices: { nodeName: { old: ['n1'], new: ['n2'] } }, size: 20000 },
  { time: T0 + 1, stage: 'handler', op: 'OnUpdate', key, rv: '1000004', listener: 'pods', old: { metadata: { name: 'x' } }, new: { metadata: { name: 'x' } } },
  { time: T0 + 1, stage: 'workqueue', op: 'add', key, rv: '1000004', queue: 'pods', depth: 2, reason: { op: 'OnAdd', rv: '1000004', isInInitialList: false, time: T0 } },
  { time: T0 + 1, stage: 'workqueue', op: 'get', key, rv: undefined, queue: 'pods', depth: 1, reasons: 1 },
  { time: T0 + 2, stage: 'reconcile', op: 'error', key, error: new Boom('conflict: "the object has been modified"'), ms: 0.25 },
  { time: T0 + 2, stage: 'http', op: 'response', method: 'GET', url: '/api/v1/pods?watch=true&resourceVersion=1', status: 200, ms: 1.5, conn: 3 },
  { time: T0 + 3, stage: 'reflector', op: 'listed', rv: '100', items: 0, pages: 1, ms: Number.NaN, paginated: false, big: 12345678901234567890n },
  { time: T0 + 3, stage: 'watch', op: 'ERROR', type: 'ERROR', key: undefined, rv: null as unknown as string, status: { code: 410, reason: 'Expired' } },
  { time: T0 + 4, stage: 'reflector', op: 'backoff', ms: Infinity, fn: () => 1, sym: Symbol('x'), when: new Date(T0), nested: [1, 'two', null, { a: undefined }] },
  { time: T0 + 5, stage: 'watch', op: 'ADDED', type: 'ADDED', key: 'ns/ünïcödé-✓-日本\u0001"\\', rv: '7', note: 'line\nbreak \u2028 \ud800' },
  { time: T0 + 6, stage: 'reflector', op: 'odd', '0': 'index-like', z: 1, '1x': 'digit first' },
];

function ndjson(records: TraceRecord[]): string {
  let out = '';
  const p = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => (out += s) }, stages: new Set(['http', 'reflector', 'watch', 'fifo', 'indexer', 'handler', 'workqueue', 'reconcile']) });
  for (const r of records) p.write(r);
  p.end();
  return out;
}

describe('-o ndjson lines written directly', () => {
  it('are byte for byte what the general JSON form gives, for every record shape', () => {
    const lines = ndjson(RECORDS).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(RECORDS.length);
    RECORDS.forEach((r, i) => expect(lines[i]).toBe(JSON.stringify(traceRecordToJSON(r))));
  });

  it('are the bytes kwatch printed before they were written directly (golden file)', () => {
    expect(ndjson(RECORDS)).toBe(readFileSync(new URL('./ndjson-golden.ndjson', import.meta.url), 'utf8'));
  });

  it('write each record\'s time as toISOString does, across milliseconds, seconds, going back, fractions and odd times', () => {
    const times = [T0, T0, T0 + 1, T0 + 999, T0 + 485, T0 + 485.9, T0 + 486.2, T0 - 1, T0 - 1000, T0 + 1000, T0 + 1001, 0, 999, 1000, -1, 253402300799999, 253402300800000];
    const records: TraceRecord[] = times.map((time, i) => ({ time, stage: 'watch', op: 'MODIFIED', key, rv: String(i), type: 'MODIFIED' }));
    const lines = ndjson(records).split('\n');
    lines.pop();
    records.forEach((r, i) => expect(lines[i]).toBe(JSON.stringify(traceRecordToJSON(r))));
  });

  it('stay exact for the values it keeps whole per key: repeats, bounds, lookalikes, and past the caches', () => {
    const odd = ['', 'x', '\u0000x', 'x\u0000', '"q"', 'ü✓', '\ud800', 'a'.repeat(32), 'a'.repeat(33)];
    const values: unknown[] = [...odd, ...odd.map((s) => [s]), ['x', 'y'], [], [1], [3, 17, 4294967295], [-0], [1, 2 ** 32], [1, -1], [1, 1.5], [1, null], [1, Number.NaN], [1, '2'], 0, -0, 1, 255, 256, -1, 1.5, 2 ** 32, -(2 ** 31), Number.NaN, true, false, null, new Date(T0)];
    const records: TraceRecord[] = [];
    // Every value twice under the same key (kept, then reused) and under a second key, then 200 distinct strings.
    for (const v of [...values, ...values]) records.push({ time: T0, stage: 'workqueue', op: 'add', key, rv: '5', queue: v, depth: v });
    for (let i = 0; i < 200; i++) records.push({ time: T0 + i, stage: 'handler', op: 'OnUpdate', key: `ns/p${i % 3}`, rv: String(i % 2), listener: `l${i}`, depth: i });
    const lines = ndjson(records).split('\n');
    lines.pop();
    records.forEach((r, i) => expect(lines[i]).toBe(JSON.stringify(traceRecordToJSON(r))));
  });

  it('keeps order and bytes in one batch mixing ASCII, non-ASCII, general-path and very long lines', async () => {
    const chunks: string[] = [];
    const p = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => chunks.push(s) }, stages: new Set(['watch', 'fifo', 'reconcile']), batch: true });
    const huge = 'x'.repeat(200_000) + 'ü';
    const records: TraceRecord[] = [
      { time: T0, stage: 'fifo', op: 'Updated', key, rv: '1', depth: 1, fifo: 'real' },
      { time: T0, stage: 'watch', op: 'ADDED', type: 'ADDED', key: 'ns/日本', rv: '2', note: 'ü' },
      { time: T0, stage: 'fifo', op: 'Updated', key, rv: '3', depth: 4_294_967_295, fifo: 'real' },
      { time: T0, stage: 'reconcile', op: 'odd', '0': 'index-like, so the general path', key },
      { time: T0, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key, rv: '4', note: huge },
      { time: T0, stage: 'fifo', op: 'Deleted', key, rv: '5', depth: 0, fifo: 'real', reason: { op: 'OnDelete', tombstone: true, nested: { a: 1 } } },
    ];
    for (const r of records) p.write(r);
    await new Promise((r) => setImmediate(r));
    p.end();
    expect(chunks.join('')).toBe(records.map((r) => JSON.stringify(traceRecordToJSON(r)) + '\n').join(''));
  });

  it('writes leading fields of another type as the general JSON form does (an Error key is {} there, not its message)', () => {
    const records: TraceRecord[] = [
      { time: T0, stage: 'watch', op: 'ADDED', type: 'ADDED', key: new Error('odd') as unknown as string, rv: '1' },
      { time: T0, stage: 'watch', op: 'ADDED', type: 7 as unknown as 'ADDED', key: 5 as unknown as string, rv: ['2'] as unknown as string },
    ];
    expect(ndjson(records)).toBe(records.map((r) => JSON.stringify(traceRecordToJSON(r)) + '\n').join(''));
  });

  it('leaves out a detail whose toJSON gives nothing, as JSON.stringify does', () => {
    const r: TraceRecord = { time: T0, stage: 'fifo', op: 'Updated', key, rv: '1', gone: { toJSON: () => undefined }, depth: 1 };
    expect(ndjson([r])).toBe(JSON.stringify(traceRecordToJSON(r)) + '\n');
    expect(ndjson([r])).not.toContain('gone');
  });

  it('writes each line at once when not batched', () => {
    const chunks: string[] = [];
    const p = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => chunks.push(s) }, stages: new Set(['fifo']) });
    p.write({ time: T0, stage: 'fifo', op: 'Updated', key, rv: '1', depth: 1, fifo: 'real' });
    p.write({ time: T0, stage: 'fifo', op: 'Updated', key: 'ns/ü', rv: '2', depth: 2, fifo: 'real' });
    expect(chunks).toEqual([
      `{"time":"2026-11-26T13:15:37.515Z","stage":"fifo","op":"Updated","key":"${key}","rv":"1","depth":1,"fifo":"real"}\n`,
      '{"time":"2026-11-26T13:15:37.515Z","stage":"fifo","op":"Updated","key":"ns/ü","rv":"2","depth":2,"fifo":"real"}\n',
    ]);
  });

  it('stay exact for records of one stage and op whose keys change: repeats, then a key more, a key less, keys reordered, other value types', () => {
    // Each shape written three times (its keys then found in place), then its variants, then again.
    const variants = (r: TraceRecord): TraceRecord[] => {
      const { time, stage, op, ...rest } = r;
      const details = Object.entries(rest);
      return [
        { ...r, extra: 'x' },
        { time, stage, op, ...Object.fromEntries(details.slice(1)) },
        { time, stage, op, ...Object.fromEntries([...details].reverse()) },
        { time, stage, op, ...Object.fromEntries(details.map(([k, v]) => [k, typeof v === 'number' ? String(v) : typeof v === 'string' ? 7 : v])) },
        { time, stage, op, ...Object.fromEntries(details.map(([k]) => [k, undefined])) },
        { time, stage, op, ...Object.fromEntries(details.map(([k, v], i) => [i === 0 ? '0' : k, v])) },
      ];
    };
    const records = RECORDS.flatMap((r) => [r, r, r, ...variants(r), r, r, ...variants(r), r]);
    const lines = ndjson(records).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(records.length);
    records.forEach((r, i) => expect(lines[i]).toBe(JSON.stringify(traceRecordToJSON(r))));
  });

  it('stay exact for whole numbers past 2^32 written as digits (a reason\'s epoch-ms time), up to 2^53 and beyond', () => {
    const numbers = [2 ** 32, 2 ** 32 + 1, 2 ** 32 + 0.5, 1e9 * 4294967 - 1, 1e9 * 9007199 - 1, 1e9 * 9007199, 1e15, 1e15 + 1, T0, 1795916168453, 999_999_999_999, 1_000_000_000_000, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1.5e300, -(2 ** 40), -1e9 * 5 - 1];
    const records: TraceRecord[] = numbers.map((n, i) => ({ time: T0, stage: 'workqueue', op: 'add', key, rv: String(i), queue: 'pods', depth: n, reason: { op: 'OnAdd', rv: String(i), time: n } }));
    const lines = ndjson(records).split('\n');
    lines.pop();
    records.forEach((r, i) => expect(lines[i]).toBe(JSON.stringify(traceRecordToJSON(r))));
  });

  it('stay exact for runs of records of one key and version: repeated, after a general-path record, across a batch, with non-ASCII keys', async () => {
    const chunks: string[] = [];
    const p = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => chunks.push(s) }, stages: new Set(['watch', 'fifo', 'handler', 'workqueue', 'reconcile']), batch: true });
    const other = 'ns/ünï-✓';
    const run = (k: string | undefined, rv: string | undefined): TraceRecord[] => [
      { time: T0, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: k, rv, name: 'pods', bytes: 10, conn: 1 },
      { time: T0, stage: 'fifo', op: 'Updated', key: k, rv, depth: 1, fifo: 'real' },
      { time: T0, stage: 'handler', op: 'OnUpdate', key: k, rv, listener: 'pods' },
    ];
    const first: TraceRecord[] = [
      ...run(key, '1'),
      // Left to the general path after its key and version were written: the next record must not copy them from there.
      { time: T0, stage: 'reconcile', op: 'odd', key, rv: '2', '0': 'index-like' },
      ...run(key, '2'),
      { time: T0, stage: 'reconcile', op: 'odd', key, rv: '2', '0': 'index-like' },
      ...run(key, '2'),
      ...run(key, undefined),
      ...run(undefined, undefined),
      ...run(undefined, '2'),
      ...run(other, '2'),
      ...run(key, '2'),
      ...run(`${key.slice(0, 5)}${key.slice(5)}`, '2'),
    ];
    for (const r of first) p.write(r);
    // The batch is written and emptied here: the pair kept in it is gone with it.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 5));
    const second = [...run(key, '2'), ...run(other, '2')];
    for (const r of second) p.write(r);
    p.end();
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.join('')).toBe([...first, ...second].map((r) => JSON.stringify(traceRecordToJSON(r)) + '\n').join(''));
  });

  it('keeps a detail field named like a member of Object.prototype (it used to vanish)', () => {
    const line = ndjson([{ time: T0, stage: 'reconcile', op: 'start', key, constructor: 'c', toString: 't' }]);
    expect(JSON.parse(line)).toMatchObject({ constructor: 'c', toString: 't' });
  });
});
