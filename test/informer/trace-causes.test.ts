import { describe, expect, it } from 'vitest';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { buildPipeline } from '../../src/informer/pipeline.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';

function pod(name: string, node: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name, uid: `uid-${name}` }, spec: { nodeName: node } };
}

function collect(tracer: Tracer): TraceRecord[] {
  const got: TraceRecord[] = [];
  tracer.subscribe((r) => got.push(r));
  return got;
}

describe('trace ids and causes', () => {
  it('gives every record a run-unique id, and none while nobody listens', () => {
    const tracer = new Tracer();
    const silent: TraceRecord = { time: 1, stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '1' };
    tracer.emit(silent);
    expect(silent.id).toBeUndefined();
    const got = collect(tracer);
    for (let i = 0; i < 5; i++) tracer.emit({ time: i, stage: 'watch', op: 'ADDED', key: `ns/${i}`, rv: String(i) });
    const ids = got.map((r) => r.id);
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) expect(typeof id).toBe('number');
  });

  it('links a watch event through the pipeline: fifo delta, pop, handler, workqueue add, reconcile start', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a', 'n1')]);
    const tracer = new Tracer();
    const got = collect(tracer);
    const pipeline = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer, fifo: 'real' });
    const stop = new AbortController();
    const done = pipeline.run(stop.signal);
    await pipeline.whenSynced(stop.signal);
    await lw.waitForWatch(1);
    const rv = lw.apply(pod('a', 'n2')).metadata.resourceVersion;
    const byId = new Map<number, TraceRecord>();
    const isStart = (r: TraceRecord) => r.stage === 'reconcile' && r.op === 'start' && (r.reasons as { rv?: string }[] | undefined)?.some((x) => x.rv === rv);
    await expect.poll(() => got.some(isStart), { timeout: 10_000 }).toBe(true);
    stop.abort();
    await done.catch(() => {});
    for (const r of got) byId.set(r.id as number, r);
    const start = got.find(isStart)!;
    // Walk the first cause back to the watch event.
    const chain: string[] = [];
    let at: TraceRecord | undefined = start;
    while (at) {
      chain.push(`${at.stage} ${at.op}`);
      const cause = at.cause as number[] | undefined;
      at = cause?.length ? byId.get(cause[0]) : undefined;
    }
    expect(chain).toEqual(['reconcile start', 'workqueue add', 'handler OnUpdate', 'fifo pop', 'fifo Updated', 'watch MODIFIED']);
  });

  it('names every trigger a reconcile merged, the run a write came from, and the echo of the write', () => {
    const tracer = new Tracer();
    const got = collect(tracer);
    const emit = (r: TraceRecord) => {
      tracer.emit(r);
      return r.id as number;
    };
    const h1 = emit({ time: 1, stage: 'handler', op: 'OnUpdate', key: 'ns/a', rv: '5' });
    const a1 = emit({ time: 1, stage: 'workqueue', op: 'add', key: 'ns/a', rv: '5', queue: 'c', controller: 'c', reason: { key: 'ns/a', rv: '5' } });
    const h2 = emit({ time: 2, stage: 'handler', op: 'OnUpdate', key: 'ns/a', rv: '6' });
    const a2 = emit({ time: 2, stage: 'workqueue', op: 'add', key: 'ns/a', rv: '6', queue: 'c', controller: 'c', reason: { key: 'ns/a', rv: '6' } });
    emit({ time: 3, stage: 'workqueue', op: 'get', key: 'ns/a', queue: 'c', controller: 'c' });
    const start = emit({ time: 3, stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' });
    const write = emit({ time: 4, stage: 'reconcile', op: 'write', key: 'ns/a', rv: '7', controller: 'c', target: 'ns/a' });
    const echo = emit({ time: 5, stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: '7', type: 'MODIFIED' });
    const rec = (id: number) => got.find((r) => r.id === id)!;
    expect(rec(a1).cause).toEqual([h1]);
    expect(rec(a2).cause).toEqual([h2]);
    expect(rec(start).cause).toEqual([a1, a2]);
    expect(rec(write).cause).toEqual([start]);
    expect(rec(echo).echoOf).toBe(write);
  });

  it('names the echo on the write when the watch event raced ahead of the write\'s answer', () => {
    const tracer = new Tracer();
    const got = collect(tracer);
    tracer.emit({ time: 1, stage: 'endpoint', op: 'watch', key: 'ns/a', rv: '9', client: 'ctl', resource: 'configmaps', event: 'MODIFIED', type: 'MODIFIED' });
    tracer.emit({ time: 2, stage: 'endpoint', op: 'write', key: 'ns/a', rv: '9', client: 'ctl', resource: 'configmaps', code: 200 });
    expect(got[1].echo).toBe(got[0].id);
  });

  it('under --exec, a write\'s causes are the events the endpoint inferred it reacted to', () => {
    const tracer = new Tracer();
    const got = collect(tracer);
    tracer.emit({ time: 1, stage: 'endpoint', op: 'watch', key: 'ns/a', rv: '3', client: 'ctl', resource: 'configmaps', event: 'MODIFIED', type: 'MODIFIED' });
    tracer.emit({ time: 2, stage: 'endpoint', op: 'write', key: 'ns/a', rv: '4', client: 'ctl', resource: 'configmaps', code: 200, after: ['MODIFIED configmaps ns/a@3 (own write)'], trigger: 'inferred' });
    tracer.emit({ time: 3, stage: 'endpoint', op: 'watch', key: 'ns/a', rv: '4', client: 'ctl', resource: 'configmaps', event: 'MODIFIED', type: 'MODIFIED' });
    expect(got[1].cause).toEqual([got[0].id]);
    expect(got[2].echoOf).toBe(got[1].id);
  });
});

describe('causes in a filtered view (--stages)', () => {
  it('a printed cause names a printed record: hidden links are skipped to the nearest shown cause', async () => {
    const { createTracePrinter } = await import('../../src/render/trace-printer.js');
    const lw = new FakeListerWatcher();
    lw.seed([pod('a', 'n1')]);
    const tracer = new Tracer();
    // Another listener wants every record (as --trace-out does), so the stages the view hides are still traced.
    const all = collect(tracer);
    let out = '';
    const printer = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => (out += s) }, stages: new Set(['watch', 'handler', 'workqueue']) });
    tracer.subscribe((r) => printer.write(r));
    const pipeline = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer, fifo: 'real' });
    const stop = new AbortController();
    const done = pipeline.run(stop.signal);
    await pipeline.whenSynced(stop.signal);
    await lw.waitForWatch(1);
    const rv = lw.apply(pod('a', 'n2')).metadata.resourceVersion;
    await expect.poll(() => all.some((r) => r.stage === 'workqueue' && r.op === 'add' && r.rv === rv), { timeout: 10_000 }).toBe(true);
    stop.abort();
    await done.catch(() => {});
    printer.end();
    const printed = out.trim().split('\n').map((l) => JSON.parse(l) as TraceRecord);
    const ids = new Set(printed.map((r) => r.id));
    const event = printed.find((r) => r.stage === 'watch' && r.op === 'MODIFIED')!;
    const handler = printed.find((r) => r.stage === 'handler' && r.rv === rv)!;
    // In the run the handler call was caused by the fifo pop; printed, by the watch event behind it.
    expect(all.find((r) => r.id === handler.id)!.cause).not.toEqual([event.id]);
    expect(handler.cause).toEqual([event.id]);
    for (const r of printed) for (const c of (r.cause as number[] | undefined) ?? []) expect(ids.has(c)).toBe(true);
    // The records other listeners received are left as they were.
    expect(all.find((r) => r.id === handler.id)!.cause).toEqual([all.find((r) => r.stage === 'fifo' && r.op === 'pop' && r.rv === rv)!.id]);
  });
});
