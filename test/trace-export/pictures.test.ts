import { describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { toPerfetto } from '../../src/trace-export/perfetto.js';
import { toOtlpSpans } from '../../src/trace-export/otlp.js';
import { explainKey } from '../../src/trace-export/causal-chain.js';
import { findFindings } from '../../src/trace-export/findings.js';
import { TraceCollector, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { otlpProblems, perfettoProblems } from './format-rules.js';

/**
 * Two controllers' runs as the pipeline traces them: `a` rewrites its key after each echo of its own write (a loop);
 * `b`'s reconciles overlap `a`'s in time (two workers), so slices must be spread over threads.
 */
function loopTrace(rounds: number): TraceRow[] {
  const tracer = new Tracer();
  const collector = new TraceCollector(tracer);
  let t = 1_700_000_000_000;
  let rv = 100;
  const emit = (r: Omit<TraceRecord, 'time'>, dt = 1) => tracer.emit({ time: (t += dt), ...r } as TraceRecord);
  emit({ stage: 'reflector', op: 'watch-start', name: 'deployments.apps', rv: '100', conn: 1 });
  emit({ stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: 'ns/a', rv: String(++rv), name: 'deployments.apps' });
  for (let i = 0; i < rounds; i++) {
    const eventRv = String(rv);
    emit({ stage: 'fifo', op: 'Updated', key: 'ns/a', rv: eventRv });
    emit({ stage: 'fifo', op: 'pop', key: 'ns/a', rv: eventRv });
    emit({ stage: 'handler', op: 'OnUpdate', key: 'ns/a', rv: eventRv });
    emit({ stage: 'workqueue', op: 'add', key: 'ns/a', rv: eventRv, queue: 'c', controller: 'c', depth: 1, reason: { key: 'ns/a', rv: eventRv } });
    emit({ stage: 'workqueue', op: 'get', key: 'ns/a', queue: 'c', controller: 'c', depth: 0 });
    emit({ stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' });
    // Another worker's run, overlapping this one.
    emit({ stage: 'reconcile', op: 'start', key: 'ns/b', controller: 'c' });
    emit({ stage: 'reconcile', op: 'write', key: 'ns/a', target: 'ns/a', controller: 'c', verb: 'update-status', rv: String(++rv), changed: ['status.stamp'] }, 2);
    emit({ stage: 'reconcile', op: 'success', key: 'ns/a', controller: 'c' });
    emit({ stage: 'reconcile', op: 'success', key: 'ns/b', controller: 'c' }, 3);
    emit({ stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: 'ns/a', rv: String(rv), name: 'deployments.apps' }, 5);
  }
  emit({ stage: 'reflector', op: 'watch-close', name: 'deployments.apps', conn: 1, reason: 'eof' });
  return collector.stop();
}

describe('the pictures of a trace', () => {
  it('Perfetto: every event has ph, ts, pid, tid; X slices have dur and never overlap on a thread; every flow_in has its flow_out', () => {
    const file = toPerfetto(loopTrace(8));
    expect(perfettoProblems(file)).toEqual([]);
    const reconciles = file.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'reconcile');
    // a's and b's runs overlap: they were given different threads of the reconcile process.
    expect(new Set(reconciles.map((e) => e.tid)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(reconciles.map((e) => e.pid)).size).toBe(1);
    // The chain event → reconcile → write → echo → … is one flow.
    const flows = file.traceEvents.filter((e) => e.flow_in);
    expect(flows.length).toBeGreaterThanOrEqual(8 * 3 - 1);
    expect(file.traceEvents.some((e) => e.ph === 'M' && e.name === 'process_name' && (e.args as { name: string }).name === 'reconcile')).toBe(true);
  });

  it('OTLP: hex ids of the right length, parents that exist, nanoseconds as strings; a reconcile links the event that started it', () => {
    const rows = loopTrace(3);
    const spans = toOtlpSpans(rows, 'ab'.repeat(16));
    expect(otlpProblems(spans)).toEqual([]);
    const reconcile = spans.find((s) => s.name === 'reconciling object' && s.attributes.some((a) => a.key === 'object.ref' && JSON.stringify(a.value).includes('ns/a')))!;
    expect(reconcile.links?.length).toBeGreaterThan(0);
    const linked = spans.find((s) => s.spanId === reconcile.links![0].spanId)!;
    expect(linked.name).toBe('k8s.watch.event');
    const write = spans.find((s) => s.name === 'update-status')!;
    expect(write.parentSpanId).toBe(reconcile.spanId);
  });

  it('the chain and the findings name a loop of one writer', () => {
    const rows = loopTrace(6);
    const lines = explainKey(rows, 'ns/a');
    expect(lines[0]).toMatch(/^ns\/a: write #\d+ status\.stamp by c ← reconcile #\d+ ← MODIFIED@\d+ #\d+ echo of write #\d+ \(own\) ← write/);
    expect(lines[0]).toMatch(/… loop since write #\d+ \(5 rounds\) ← write #\d+ status\.stamp by c ← reconcile #\d+ ← MODIFIED@101 #\d+ \(from outside: an upstream change\)$/);
    expect(lines[1]).toMatch(/^loop: c rewrote ns\/a 5 times/);
    expect(findFindings(rows).map((f) => f.kind)).toEqual(['loop']);
    expect(explainKey(rows, 'ns/none')).toEqual(['no record of ns/none in this trace']);
  });
});

describe('tombstones a relist delivered', () => {
  /** An informer that missed a delete while its watch was down: the relist's Replace queues the tombstone. */
  function relistTrace(): TraceRow[] {
    const tracer = new Tracer();
    const collector = new TraceCollector(tracer);
    let t = 1_700_000_000_000;
    const emit = (r: Omit<TraceRecord, 'time'>) => tracer.emit({ time: (t += 1), ...r } as TraceRecord);
    emit({ stage: 'reflector', op: 'watch-start', name: 'pods', rv: '100', conn: 1 });
    emit({ stage: 'reflector', op: 'expired', name: 'pods', rv: '100', error: 'too old resource version' });
    emit({ stage: 'reflector', op: 'relist', name: 'pods', reason: 'expired' });
    emit({ stage: 'reflector', op: 'list-page', name: 'pods', rv: '140', items: 1, bytes: 900, ms: 1 });
    emit({ stage: 'fifo', op: 'Replaced', key: 'ns/kept', rv: '120', depth: 1 });
    emit({ stage: 'fifo', op: 'Deleted', key: 'ns/gone', rv: '110', tombstone: true, tombstoneType: 'DeletedFinalStateUnknown', tombstoneExplanation: 'last known at resourceVersion 110', depth: 2 });
    emit({ stage: 'fifo', op: 'Deleted', key: 'ns/gone-too', rv: '111', tombstone: true, tombstoneType: 'DeletedFinalStateUnknown', depth: 3 });
    emit({ stage: 'fifo', op: 'Deleted', key: 'ns/plain', rv: '141', depth: 3 });
    emit({ stage: 'reflector', op: 'watch-start', name: 'pods', rv: '140', conn: 2 });
    return collector.stop();
  }

  it('the HTML report draws them in the watch lane, and the relist mark counts them', async () => {
    const { buildReportModel } = await import('../../src/trace-export/report-model.js');
    const model = buildReportModel(relistTrace(), 'relist');
    const lane = model.lanes.find((l) => l.kind === 'watch' && l.id === 'watch pods')!;
    expect(lane.marks.filter((m) => m.kind === 'tombstone').map((m) => m.label)).toEqual(['tombstone ns/gone', 'tombstone ns/gone-too']);
    expect(lane.marks.find((m) => m.kind === 'tombstone')!.detail).toBe('DeletedFinalStateUnknown: last known at resourceVersion 110');
    expect(lane.marks.find((m) => m.kind === 'relist')!.detail).toBe('expired; delivered 2 tombstones');
  });

  it('Perfetto shows them as instants on the reflector\'s track', () => {
    const file = toPerfetto(relistTrace());
    expect(perfettoProblems(file)).toEqual([]);
    const reflector = file.traceEvents.find((e) => e.ph === 'M' && e.name === 'process_name' && (e.args as { name: string }).name === 'reflector')!.pid;
    const tombstones = file.traceEvents.filter((e) => e.ph === 'i' && e.name.startsWith('tombstone'));
    expect(tombstones.map((e) => [e.name, e.pid])).toEqual([['tombstone ns/gone', reflector], ['tombstone ns/gone-too', reflector]]);
  });
});

describe('a watch-list sync (client-go 1.35\'s default)', () => {
  /** The initial state as ADDED events on the watch, ended by the initial-events-end bookmark: no LIST is made. */
  function watchListTrace(): TraceRow[] {
    const tracer = new Tracer();
    const collector = new TraceCollector(tracer);
    let t = 1_700_000_000_000;
    const emit = (r: Omit<TraceRecord, 'time'>, dt = 1) => tracer.emit({ time: (t += dt), ...r } as TraceRecord);
    emit({ stage: 'reflector', op: 'watch-start', name: 'pods', conn: 1, watchList: true });
    emit({ stage: 'watch', op: 'ADDED', type: 'ADDED', key: 'ns/a', rv: '5', name: 'pods' }, 10);
    emit({ stage: 'watch', op: 'BOOKMARK', type: 'BOOKMARK', rv: '9', name: 'pods' }, 10);
    emit({ stage: 'reflector', op: 'initial-events-end', name: 'pods', rv: '9', conn: 1, events: 2, ms: 21 });
    emit({ stage: 'reflector', op: 'synced', name: 'pods', rv: '9', from: 'watch-list', items: 1 });
    return collector.stop();
  }

  it('Perfetto draws the initial events as the sync\'s slice, where a LIST would be', () => {
    const file = toPerfetto(watchListTrace());
    expect(perfettoProblems(file)).toEqual([]);
    const sync = file.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'list');
    expect(sync.map((e) => [e.name, e.dur])).toEqual([['WATCH-LIST pods initial events', 21_000]]);
  });

  it('the HTML report marks it in the watch lane', async () => {
    const { buildReportModel } = await import('../../src/trace-export/report-model.js');
    const lane = buildReportModel(watchListTrace(), 'watch-list').lanes.find((l) => l.kind === 'watch' && l.id === 'watch pods')!;
    expect(lane.marks.filter((m) => m.kind === 'list').map((m) => [m.label, m.detail])).toEqual([['watch-list', '2 initial events']]);
  });
});

describe('reconciles a controller process logged (--exec)', () => {
  it('OTLP: a kube-rs reconcile keeps its object.ref and reason, and the write made inside it is its child', () => {
    const tracer = new Tracer();
    const collector = new TraceCollector(tracer);
    let t = 1_700_000_000_000;
    const emit = (r: Omit<TraceRecord, 'time'>) => {
      const rec = { time: (t += 1), ...r } as TraceRecord;
      tracer.emit(rec);
      return rec;
    };
    const start = emit({ stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'demo', from: 'kube-rs', objectRef: 'ConfigMap.v1./a.ns', reason: 'object updated', logged: false });
    emit({ stage: 'endpoint', op: 'write', key: 'ns/a', client: 'demo', resource: 'configmaps', verb: 'patch', rv: '7', code: 200, reconcile: start.id });
    emit({ stage: 'reconcile', op: 'end', key: 'ns/a', controller: 'demo', from: 'kube-rs', objectRef: 'ConfigMap.v1./a.ns', logged: false, span: 'inferred' });
    const spans = toOtlpSpans(collector.stop(), 'cd'.repeat(16));
    expect(otlpProblems(spans)).toEqual([]);
    const reconcile = spans.find((s) => s.name === 'reconciling object')!;
    const value = (key: string) => JSON.stringify(reconcile.attributes.find((a) => a.key === key)?.value);
    expect(value('object.ref')).toContain('ConfigMap.v1./a.ns');
    expect(value('object.reason')).toContain('object updated');
    expect(value('kwatch.span')).toContain('inferred');
    expect(spans.find((s) => s.name === 'patch configmaps')!.parentSpanId).toBe(reconcile.spanId);
  });
});
