import { describe, expect, it } from 'vitest';
import { buildPipeline } from '../../src/informer/pipeline.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { FifoDeltaRecord, FifoPopRecord, HandlerCallRecord, QueueOpRecord, WatchEventRecord } from '../../src/informer/trace-records.js';
import { createTracePrinter, traceRecordToJSON } from '../../src/render/trace-printer.js';
import { TraceSummary } from '../../src/render/summary.js';

// The per-event records are classes of a fixed shape whose details the ndjson writer reads by name
// (src/informer/trace-records.ts, src/render/ndjson-buffer.ts): their lines must stay the bytes of the general JSON
// form, field order included, whatever values the fields hold, and the fields a producer printed before.
const T0 = Date.UTC(2026, 10, 26, 13, 15, 37, 515);
const key = 'auth/alerts-api-2430-9prw29gnjm-46rq2';
const longKey = `ns/${'x'.repeat(60)}`;
const odd = 'ns/ünï-"q"\\\u0001';

function linked<T extends TraceRecord>(r: T, id?: number, cause?: number[], echoOf?: number): T {
  const out: TraceRecord = r;
  if (id !== undefined) out.id = id;
  if (cause !== undefined) out.cause = cause;
  if (echoOf !== undefined) out.echoOf = echoOf;
  return r;
}

const RECORDS: TraceRecord[] = [
  linked(new WatchEventRecord(T0, 'MODIFIED', 'pods', key, '1000004', 6627, 1), 5),
  linked(new WatchEventRecord(T0, 'ADDED', 'pods', odd, undefined, undefined, 2), 6, undefined, 3),
  new WatchEventRecord(T0, 'DELETED', 'pods', undefined, '9', 1, 1),
  linked(new FifoDeltaRecord(T0, 'Updated', key, '1000004', 1, 'real'), 7, [5]),
  linked(new FifoDeltaRecord(T0 + 1, 'Added', longKey, undefined, 0, 'real'), 8),
  linked(new FifoPopRecord(T0, key, '1000004', ['Updated'], false, 0, 'real', undefined), 9, [7]),
  linked(new FifoPopRecord(T0, odd, '3', ['Added', 'Updated', 'Deleted'], true, 12, 'delta', undefined), 10, [7, 8]),
  linked(new FifoPopRecord(T0 + 999, key, '4', [`${'U'.repeat(40)}`], false, 3, 'real', 2), 11),
  linked(new HandlerCallRecord(T0, 'OnUpdate', key, '1000004', 'pods', undefined, undefined, '1000003', false, undefined), 12, [9]),
  linked(new HandlerCallRecord(T0, 'OnAdd', odd, '1', 'pods', 'my-controller', true, undefined, undefined, 'handler "failed"\n'), 13),
  linked(new QueueOpRecord(T0, 'add', key, '1000004', 'pods', undefined, 1, { op: 'OnUpdate', rv: '1000004', isInInitialList: false, time: T0 }, undefined, undefined), 14, [12], 2),
  linked(new QueueOpRecord(T0, 'add', key, undefined, 'pods', 'c', 0, undefined, true, undefined), 15, [12, 13]),
  linked(new QueueOpRecord(T0, 'dedup', longKey, '5', 'pods', undefined, 2, { op: 'OnAdd', nested: { deep: [1, 'two'] } }, undefined, undefined), 16),
  linked(new QueueOpRecord(T0 + 1000, 'get', key, undefined, 'pods', undefined, 0, undefined, undefined, 3), 17),
  new QueueOpRecord(T0 + 1001, 'done', key, undefined, 'pods', undefined, 0, undefined, undefined, undefined),
];

function ndjson(records: TraceRecord[]): string {
  let out = '';
  const p = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => (out += s) }, stages: 'all' });
  for (const r of records) p.write(r);
  p.end();
  return out;
}

/** The record as a literal of its defined fields, in order: what the producers emitted before the classes. */
function literal(r: TraceRecord): TraceRecord {
  return Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as TraceRecord;
}

describe('-o ndjson lines of the fixed-shape per-event records', () => {
  it('are byte for byte the general JSON form and the line of the same record as a literal, in every variant and repeated', () => {
    // Three times over, so that the writer's per-key caches are used as well as filled.
    const records = [...RECORDS, ...RECORDS, ...RECORDS];
    const lines = ndjson(records).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(records.length);
    records.forEach((r, i) => {
      expect(lines[i]).toBe(JSON.stringify(traceRecordToJSON(r)));
      expect(lines[i]).toBe(ndjson([literal(r)]).slice(0, -1));
    });
  });

  it('print the fields each producer printed, in the same order (a pipeline run, -o ndjson as kwatch events prints it)', async () => {
    const lw = new FakeListerWatcher({ kind: 'Pod' });
    lw.apply({ metadata: { namespace: 'ns', name: 'a' } });
    const tracer = new Tracer();
    let out = '';
    const printer = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => (out += s) } });
    const summary = new TraceSummary();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => {
      records.push(r);
      summary.add(r);
      printer.write(r);
    }, summary.interest(printer.shows));
    let reconciled = 0;
    const p = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer, reconcile: async () => void reconciled++ });
    const ac = new AbortController();
    const running = p.run(ac.signal);
    await p.informers[0].whenSynced(ac.signal);
    for (let i = 0; i < 200 && reconciled < 1; i++) await new Promise((r) => setTimeout(r, 5));
    lw.apply({ metadata: { namespace: 'ns', name: 'a', labels: { v: '2' } } });
    for (let i = 0; i < 400 && reconciled < 2; i++) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await running.catch(() => {});
    printer.end();
    const shapes = new Map<string, string>();
    for (const line of out.trim().split('\n')) {
      const r = JSON.parse(line) as Record<string, unknown>;
      shapes.set(`${String(r.stage)} ${String(r.op)}`, Object.keys(r).join(','));
    }
    const lead = 'time,stage,op,key,rv';
    expect(shapes.get('watch MODIFIED')).toBe(`${lead},type,name,bytes,conn,id`);
    expect(shapes.get('fifo Updated')).toBe(`${lead},depth,fifo,id,cause`);
    expect(shapes.get('fifo pop')).toBe(`${lead},deltas,types,isInInitialList,depth,fifo,id,cause`);
    expect(shapes.get('handler OnUpdate')).toBe(`${lead},listener,oldRv,sync,id,cause`);
    expect(shapes.get('workqueue add')).toBe(`${lead},queue,depth,reason,id,cause`);
    expect(shapes.get('workqueue get')).toBe(`${lead},queue,depth,reasons,id`);
    // Each of them took the fixed-shape path.
    const watch = records.find((r) => r.stage === 'watch' && r.op === 'MODIFIED');
    expect(watch).toBeInstanceOf(WatchEventRecord);
    expect(records.find((r) => r.stage === 'fifo' && r.op === 'Updated')).toBeInstanceOf(FifoDeltaRecord);
    expect(records.find((r) => r.stage === 'fifo' && r.op === 'pop')).toBeInstanceOf(FifoPopRecord);
    expect(records.find((r) => r.stage === 'handler' && r.op === 'OnUpdate')).toBeInstanceOf(HandlerCallRecord);
    expect(records.find((r) => r.stage === 'workqueue' && r.op === 'add')).toBeInstanceOf(QueueOpRecord);
    // And the links between them hold: pop ← delta ← watch event.
    const delta = records.find((r) => r.stage === 'fifo' && r.op === 'Updated')!;
    expect(delta.cause).toEqual([watch!.id]);
  });
});
