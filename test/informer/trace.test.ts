import { describe, expect, it } from 'vitest';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { buildPipeline } from '../../src/informer/pipeline.js';
import { ResourceTracer, Tracer, type TraceInterest, type TraceRecord, type Stage } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import { stageOpFilter } from '../../src/render/stage-filter.js';
import { TraceSummary } from '../../src/render/summary.js';

/** An interest that wants only `stages` and notes what it was told it missed. */
function interest(stages: Stage[]): TraceInterest & { asked: string[]; missed: string[] } {
  const asked: string[] = [];
  const missed: string[] = [];
  return {
    asked,
    missed,
    wants: (stage, op) => {
      asked.push(`${stage} ${op}`);
      return stages.includes(stage);
    },
    skipped: (stage, op) => missed.push(`${stage} ${op}`),
  };
}

describe('Tracer.shouldEmit', () => {
  it('is false without listeners, true for a listener without an interest', () => {
    const t = new Tracer();
    expect(t.shouldEmit('indexer', 'add')).toBe(false);
    const off = t.subscribe(() => {});
    expect(t.shouldEmit('indexer', 'add')).toBe(true);
    off();
    expect(t.shouldEmit('indexer', 'add')).toBe(false);
  });

  it('declines a record every interest declines, tallies it as skipped, and asks once per stage and op', () => {
    const t = new Tracer();
    const a = interest(['watch']);
    const b = interest(['handler']);
    t.subscribe(() => {}, a);
    t.subscribe(() => {}, b);
    expect(t.shouldEmit('watch', 'MODIFIED')).toBe(true);
    expect(t.shouldEmit('handler', 'OnUpdate')).toBe(true);
    for (let i = 0; i < 3; i++) expect(t.shouldEmit('indexer', 'update')).toBe(false);
    expect(a.missed).toEqual(['indexer update', 'indexer update', 'indexer update']);
    expect(b.missed).toEqual(a.missed);
    expect(a.asked.filter((x) => x === 'indexer update')).toHaveLength(1);
  });

  it('asks again after the listeners change: a new listener without an interest wants everything', () => {
    const t = new Tracer();
    const a = interest(['watch']);
    t.subscribe(() => {}, a);
    expect(t.shouldEmit('workqueue', 'done')).toBe(false);
    const off = t.subscribe(() => {});
    expect(t.shouldEmit('workqueue', 'done')).toBe(true);
    off();
    expect(t.shouldEmit('workqueue', 'done')).toBe(false);
    expect(a.missed).toEqual(['workqueue done', 'workqueue done']);
  });

  it('a ResourceTracer asks its target and adds the resource to what it forwards', () => {
    const target = new Tracer();
    const pods = new ResourceTracer(target, 'pods');
    expect(pods.enabled).toBe(false);
    expect(pods.shouldEmit('watch', 'ADDED')).toBe(false);
    const got: TraceRecord[] = [];
    const a = interest(['watch']);
    target.subscribe((r) => got.push(r), a);
    expect(pods.enabled).toBe(true);
    expect(pods.shouldEmit('watch', 'ADDED')).toBe(true);
    expect(pods.shouldEmit('fifo', 'Added')).toBe(false);
    expect(a.missed).toEqual(['fifo Added']);
    pods.emit({ time: 1, stage: 'watch', op: 'ADDED', key: 'ns/a' });
    expect(got).toEqual([{ time: 1, stage: 'watch', op: 'ADDED', key: 'ns/a', resource: 'pods', id: expect.any(Number) }]);
  });
});

const pod = (name: string, node = 'n1'): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: { nodeName: node } });

/** Runs a pipeline over a list, an update, an add and a delete; returns what the listener got and the summary's counts. */
async function run(subscribe: (tracer: Tracer, summary: TraceSummary, got: TraceRecord[]) => void, fifo: 'real' | 'delta') {
  const lw = new FakeListerWatcher();
  lw.seed([pod('a'), pod('b')]);
  const tracer = new Tracer();
  const summary = new TraceSummary();
  const got: TraceRecord[] = [];
  subscribe(tracer, summary, got);
  const pipeline = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer, fifo, indexers: { byNode: (o) => [String((o.spec as { nodeName: string }).nodeName)] } });
  const stop = new AbortController();
  const done = pipeline.run(stop.signal);
  await pipeline.whenSynced(stop.signal);
  await lw.waitForWatch(1);
  lw.apply(pod('a', 'n2'));
  lw.apply(pod('c'));
  lw.remove('ns/b');
  const deadline = Date.now() + 5000;
  while (!(got.some((r) => r.stage === 'handler' && r.op === 'OnDelete') && pipeline.isIdle())) {
    if (Date.now() > deadline) throw new Error('the pipeline did not finish the changes');
    await new Promise((r) => setTimeout(r, 5));
  }
  stop.abort();
  await done;
  return { got, counts: summary.toJSON().stages };
}

describe.each(['real', 'delta'] as const)('a view that hides stages (%s FIFO)', (fifo) => {
  it('gets only the records it shows, and its summary counts the same records as a view of every stage', async () => {
    const all = await run((t, s, got) => t.subscribe((r) => (s.add(r), got.push(r))), fifo);
    const shows = stageOpFilter(undefined);
    const view = await run((t, s, got) => t.subscribe((r) => (s.add(r), got.push(r)), s.interest(shows)), fifo);
    expect(view.counts).toEqual(all.counts);
    expect(all.counts.indexer).toMatchObject({ add: 3, update: 1, delete: 1 });
    expect(all.counts.reconcile?.success).toBeGreaterThanOrEqual(3);
    // The hidden records were never built: the view's listener got none of them.
    const hidden = (r: TraceRecord) => r.stage === 'indexer' || r.stage === 'reconcile' || (r.stage === 'workqueue' && (r.op === 'done' || r.op === 'forget'));
    expect(all.got.filter(hidden).length).toBeGreaterThan(10);
    expect(view.got.filter(hidden)).toEqual([]);
    const names = (rs: TraceRecord[]) => rs.map((r) => `${r.stage} ${r.op} ${r.key ?? ''}`).sort();
    expect(names(view.got)).toEqual(names(all.got.filter((r) => !hidden(r))));
  });
});
