// OTLP/JSON lines (Jaeger's upload, Grafana's import): spans, parents, links and times in nanoseconds as decimal
// strings. Reconcile spans from a recorded reconcile run; the wire and the units from records with chosen times.
import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { spanIdOf, toOtlpLines, toOtlpSpans, type OtlpSpan } from '../../src/trace-export/otlp.js';
import { isWrite } from '../../src/trace-export/trace-rows.js';
import { otlpProblems, otlpSpans } from './format-rules.js';
import { recordRun, stamper, writesDone } from './recorded-runs.js';
import { T0, trace } from './chosen-records.js';

const TRACE = 'ab'.repeat(16);
const ROOT = 'f'.repeat(16);


/** Nanoseconds of T0 + ms, as OTLP's JSON writes them. */
const ns = (ms: number) => (BigInt(T0) * 1_000_000n + BigInt(Math.round(ms * 1_000_000))).toString();
const attrsOf = (s: OtlpSpan) => Object.fromEntries(s.attributes.map((a) => [a.key, Object.values(a.value)[0]]));

describe('OTLP spans of a recorded reconcile run', () => {
  it('a reconcile span per run linked to the event that started it, its write as its child linked back, the echo linked to the write', async () => {
    const rows = await recordRun({ c: stamper(2) }, writesDone(2, 3));
    const spans = toOtlpSpans(rows, TRACE);
    expect(otlpProblems(spans)).toEqual([]);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const writes = rows.filter(isWrite);
    const starts = rows.filter((r) => r.stage === 'reconcile' && r.op === 'start');
    const ends = rows.filter((r) => r.stage === 'reconcile' && r.op === 'success');
    const echo = rows.find((r) => r.stage === 'watch' && r.echoOf === writes[0].id)!;
    const run = byId.get(spanIdOf(starts[1].id))!;
    expect(run).toMatchObject({ name: 'reconciling object', kind: 1, parentSpanId: ROOT, startTimeUnixNano: String(BigInt(starts[1].time) * 1_000_000n), endTimeUnixNano: String(BigInt(ends[1].time) * 1_000_000n), status: { code: 0 } });
    expect(attrsOf(run)).toEqual({ 'object.ref': 'c/ns/web', 'object.reason': 'object updated', 'reconcile.result': 'success', controller: 'c' });
    expect(run.links).toEqual([{ traceId: TRACE, spanId: spanIdOf(echo.id) }]);
    const w = byId.get(spanIdOf(writes[1].id))!;
    expect(w).toMatchObject({ name: 'patch deployments.apps', kind: 3, parentSpanId: run.spanId, startTimeUnixNano: String(BigInt(writes[1].time) * 1_000_000n), status: { code: 0 } });
    expect(attrsOf(w)).toEqual({ 'k8s.object.key': 'ns/web', 'k8s.resource_version': '1003', 'kwatch.writer': 'c', 'kwatch.write.mode': 'apply', 'kwatch.write.fields': { values: [{ stringValue: 'metadata.annotations.stamp' }] } });
    expect(w.links).toEqual([{ traceId: TRACE, spanId: run.spanId }]);
    const e = byId.get(spanIdOf(echo.id))!;
    expect(e).toMatchObject({ name: 'k8s.watch.event', parentSpanId: spanIdOf(rows.find((r) => r.op === 'watch-start')!.id), startTimeUnixNano: String(BigInt(echo.time) * 1_000_000n), endTimeUnixNano: String(BigInt(echo.time) * 1_000_000n) });
    expect(attrsOf(e)).toEqual({ 'k8s.watch.event.type': 'MODIFIED', 'k8s.object.key': 'ns/web', 'k8s.resource_version': '1002', 'kwatch.echo_of': String(writes[0].id) });
    expect(e.links).toEqual([{ traceId: TRACE, spanId: spanIdOf(writes[0].id) }]);
    // The root spans the run; the watch connection ended with it.
    expect(spans[0]).toMatchObject({ spanId: ROOT, name: 'kwatch run', startTimeUnixNano: String(BigInt(rows[0].time) * 1_000_000n), endTimeUnixNano: String(BigInt(rows.at(-1)!.time) * 1_000_000n), attributes: [{ key: 'kwatch.records', value: { intValue: String(rows.length) } }] });
    const conn = spans.find((s) => s.name === 'k8s.watch.connection')!;
    expect(attrsOf(conn)).toEqual({ 'k8s.resource': 'deployments.apps', 'k8s.watch.resource_version': '1001', 'k8s.watch.end': 'stopped', 'k8s.watch.conn': '1' });
  });
});

describe('OTLP units and statuses', () => {
  it('nanoseconds from fractional milliseconds; a write lasts its ms; a failed reconcile and a 410 are errors', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '5', conn: 2 }],
      [1.5, { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '6', name: 'pods' }],
      [2, { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c', reasons: [{ op: 'OnAdd', reason: 'object created' }, { op: 'OnUpdate' }] }],
      [2.25, { stage: 'reconcile', op: 'write', key: 'ns/a', target: 'ns/a', controller: 'c', verb: 'update', resource: 'pods', ms: 3.5, status: { code: 500, message: 'boom' }, error: 'boom' }],
      [9, { stage: 'reconcile', op: 'error', key: 'ns/a', controller: 'c', error: 'boom' }],
      [10, { stage: 'reflector', op: 'expired', name: 'pods', rv: '5' }],
      [11, { stage: 'reconcile', op: 'start', key: 'ns/b', controller: 'c', reason: 'requeue' }],
    ]);
    const spans = toOtlpSpans(rows, TRACE);
    expect(otlpProblems(spans)).toEqual([]);
    const [root, event, write, run, conn, open] = spans;
    expect(root).toMatchObject({ startTimeUnixNano: ns(0), endTimeUnixNano: ns(11) });
    expect(event).toMatchObject({ name: 'k8s.watch.event', startTimeUnixNano: ns(1.5), endTimeUnixNano: ns(1.5), parentSpanId: spanIdOf(rows[0].id) });
    expect(write).toMatchObject({ name: 'update pods', startTimeUnixNano: ns(2.25), endTimeUnixNano: ns(5.75), status: { code: 2, message: 'boom' } });
    expect(attrsOf(write)['http.response.status_code']).toBe('500');
    expect(run).toMatchObject({ name: 'reconciling object', startTimeUnixNano: ns(2), endTimeUnixNano: ns(9), status: { code: 2, message: 'boom' } });
    expect(attrsOf(run)).toMatchObject({ 'object.reason': 'object created, OnUpdate', 'reconcile.result': 'error' });
    expect(conn).toMatchObject({ name: 'k8s.watch.connection', kind: 3, startTimeUnixNano: ns(0), endTimeUnixNano: ns(10), status: { code: 2 } });
    expect(attrsOf(conn)).toEqual({ 'k8s.resource': 'pods', 'k8s.watch.resource_version': '5', 'k8s.watch.end': 'expired', 'k8s.watch.conn': '2' });
    expect(open).toMatchObject({ name: 'reconciling object', kind: 1, spanId: spanIdOf(rows[6].id), startTimeUnixNano: ns(11), endTimeUnixNano: ns(11) });
    expect(attrsOf(open)).toEqual({ 'object.ref': 'c/ns/b', 'object.reason': 'requeue', controller: 'c', 'kwatch.open_at_end': true });
    expect(spans).toHaveLength(6);
  });

  it('a client\'s watch on the endpoint: its events under it, the close reason; its write linked to the events it followed', () => {
    const rows = trace([
      [0, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', event: 'start', rv: '1' }],
      [1, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns/a', rv: '2', event: 'ADDED' }],
      [2, { stage: 'endpoint', op: 'write', client: 'k', resource: 'configmaps', key: 'ns/a', rv: '3', code: 200, verb: 'patch', after: ['ADDED configmaps ns/a@2'], trigger: 'inferred' }],
      [3, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', event: 'close', reason: 'client gone' }],
    ]);
    const spans = toOtlpSpans(rows, TRACE);
    expect(otlpProblems(spans)).toEqual([]);
    const conn = spans.find((s) => s.name === 'k8s.watch.connection')!;
    expect(conn).toMatchObject({ spanId: spanIdOf(rows[0].id), startTimeUnixNano: ns(0), endTimeUnixNano: ns(3), status: { code: 0 } });
    expect(attrsOf(conn)).toEqual({ 'k8s.resource': 'configmaps', 'k8s.client': 'k', 'k8s.watch.resource_version': '1', 'k8s.watch.close_reason': 'client gone' });
    expect(spans.find((s) => s.name === 'k8s.watch.event')!.parentSpanId).toBe(conn.spanId);
    const w = spans.find((s) => s.name === 'patch configmaps')!;
    expect(w).toMatchObject({ parentSpanId: ROOT, links: [{ traceId: TRACE, spanId: spanIdOf(rows[1].id) }] });
    expect(attrsOf(w)).toMatchObject({ 'http.response.status_code': '200', 'kwatch.writer': 'k', 'kwatch.trigger': 'inferred' });
  });

  it('a watch still open when the run stopped is the CLIENT span a closed one is, with the same attributes, cut at the end', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '5', conn: 2 }],
      [1, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', event: 'start', rv: '7' }],
      [2, { stage: 'reflector', op: 'watch-close', name: 'pods' }],
      [3, { stage: 'reflector', op: 'watch-start', name: 'pods', rv: '9', conn: 3 }],
      [4, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', event: 'close', reason: 'eof' }],
      [5, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', event: 'start', rv: '8' }],
      [9, { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '10', name: 'pods' }],
    ]);
    const spans = toOtlpSpans(rows, TRACE);
    expect(otlpProblems(spans)).toEqual([]);
    const conns = spans.filter((s) => s.name === 'k8s.watch.connection').sort((a, b) => a.startTimeUnixNano.localeCompare(b.startTimeUnixNano));
    expect(conns.map((s) => [s.kind, s.startTimeUnixNano, s.endTimeUnixNano, attrsOf(s)])).toEqual([
      [3, ns(0), ns(2), { 'k8s.resource': 'pods', 'k8s.watch.resource_version': '5', 'k8s.watch.conn': '2', 'k8s.watch.end': 'watch-close' }],
      [3, ns(1), ns(4), { 'k8s.resource': 'configmaps', 'k8s.client': 'k', 'k8s.watch.resource_version': '7', 'k8s.watch.close_reason': 'eof' }],
      [3, ns(3), ns(9), { 'k8s.resource': 'pods', 'k8s.watch.resource_version': '9', 'k8s.watch.conn': '3', 'kwatch.open_at_end': true }],
      [3, ns(5), ns(9), { 'k8s.resource': 'configmaps', 'k8s.client': 'k', 'k8s.watch.resource_version': '8', 'kwatch.open_at_end': true }],
    ]);
    // Its events hang under it, as under a closed one.
    expect(spans.find((s) => s.name === 'k8s.watch.event')!.parentSpanId).toBe(spanIdOf(rows[3].id));
  });

  it('lines of at most 1,000 spans, every span once, the service named', () => {
    const rows = trace(Array.from({ length: 2000 }, (_, i) => [i, { stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: String(i + 1), name: 'pods' }] as [number, Omit<TraceRecord, 'time'>]));
    const text = toOtlpLines(rows, 'my-controller');
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((l) => (JSON.parse(l) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] }).resourceSpans[0].scopeSpans[0].spans.length)).toEqual([1000, 1000, 1]);
    expect(JSON.parse(lines[0])).toMatchObject({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'my-controller' } }] }, scopeSpans: [{ scope: { name: 'kwatch' } }] }] });
    const spans = otlpSpans(text);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(2001);
    expect(otlpProblems(spans)).toEqual([]);
    expect(spanIdOf(255)).toBe('00000000000000ff');
  });

  it('exactly 2,000 spans are two lines, no empty request after them', () => {
    const rows = trace(Array.from({ length: 1999 }, (_, i) => [i, { stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: String(i + 1), name: 'pods' }] as [number, Omit<TraceRecord, 'time'>]));
    expect(toOtlpLines(rows).split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('a connection that ends with no start in the trace (it began before the recording) is no span and no error', () => {
    const rows = trace([
      [0, { stage: 'reflector', op: 'expired', name: 'pods', rv: '5' }],
      [1, { stage: 'endpoint', op: 'watch', client: 'k', resource: 'pods', event: 'close', reason: 'eof' }],
      [2, { stage: 'reconcile', op: 'success', key: 'ns/a', controller: 'c' }],
    ]);
    expect(toOtlpSpans(rows, TRACE).map((s) => s.name)).toEqual(['kwatch run']);
  });
});
