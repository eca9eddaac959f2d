// OTLP/JSON lines (one ExportTraceServiceRequest per line, as the OpenTelemetry file exporter writes them): what
// Jaeger's upload and Grafana's trace import read. Ids are hex (trace 32 digits, span 16), times decimal strings of
// nanoseconds, enums integers. Watch spans are named as the OpenTelemetry proposal for the watch API names them
// (k8s.watch.connection, k8s.watch.event), reconcile spans as kube-rs names them (`reconciling object`, object.ref,
// object.reason); a record's causes become the span's links.
import { randomBytes } from 'node:crypto';
import { previousStep, TraceIndex } from './causal-chain.js';
import { eventType, isChangeEvent, isWrite, objectKeyOf, writeCode, writeFields, writeOk, writerOf, type TraceRow } from './trace-rows.js';

/** OTLP enums, as integers. */
const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;
const SPANS_PER_LINE = 1000;

type AnyValue = { stringValue: string } | { intValue: string } | { boolValue: boolean } | { arrayValue: { values: AnyValue[] } };
interface KeyValue {
  key: string;
  value: AnyValue;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
  status?: { code: number; message?: string };
}

function attr(key: string, v: unknown): KeyValue | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return { key, value: { intValue: String(v) } };
  if (typeof v === 'boolean') return { key, value: { boolValue: v } };
  if (Array.isArray(v)) return { key, value: { arrayValue: { values: v.map((x) => ({ stringValue: String(x) })) } } };
  return { key, value: { stringValue: String(v) } };
}

function attrs(o: Record<string, unknown>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [k, v] of Object.entries(o)) {
    const a = attr(k, v);
    if (a) out.push(a);
  }
  return out;
}

/** A span id from a record id: 16 hex digits, never all zero. */
export function spanIdOf(id: number): string {
  return id.toString(16).padStart(16, '0');
}

/** Nanoseconds since the epoch, as OTLP's JSON wants them: a decimal string (they overflow a JSON number). */
function nanos(ms: number): string {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

/** `dropped`: records the run made past the collector's limit (trace-rows.ts MAX_ROWS): the root span says how many. */
export function toOtlpSpans(rows: readonly TraceRow[], traceId = randomBytes(16).toString('hex'), dropped = 0): OtlpSpan[] {
  const index = new TraceIndex(rows);
  const spans: OtlpSpan[] = [];
  const first = rows[0]?.time ?? 0;
  const last = rows[rows.length - 1]?.time ?? first;
  // One root span for the run: every span without another parent hangs under it.
  const rootId = 'f'.repeat(16);
  spans.push({ traceId, spanId: rootId, name: 'kwatch run', kind: SPAN_KIND_INTERNAL, startTimeUnixNano: nanos(first), endTimeUnixNano: nanos(last), attributes: attrs({ 'kwatch.records': rows.length, 'kwatch.records.dropped': dropped || undefined }) });
  /**
   * Spans begun and not yet ended, by slot. What a span is (its name, kind and the attributes its start record gives)
   * is settled when it begins: one still open at the end of the trace is the same span, cut there.
   */
  const open = new Map<string, { row: TraceRow; spanId: string; name: string; kind: number; attributes: Record<string, unknown> }>();
  /** A watch connection's span, for its events' parent. */
  const connectionOf = new Map<string, string>();
  const running = new Map<string, string>();
  const spanOfRow = new Map<number, string>();
  const link = (r: TraceRow) => {
    const prev = previousStep(index, r);
    const ids = new Set<number>(r.cause ?? []);
    if (prev) ids.add(prev.id);
    if (r.echoOf !== undefined) ids.add(r.echoOf);
    const links = [...ids].filter((id) => spanOfRow.has(id)).map((id) => ({ traceId, spanId: spanOfRow.get(id)! }));
    return links.length ? links : undefined;
  };
  const finish = (slot: string, end: TraceRow, extra: Record<string, unknown>, failed = false) => {
    const o = open.get(slot);
    if (!o) return;
    open.delete(slot);
    spans.push({
      traceId, spanId: o.spanId, parentSpanId: rootId, name: o.name, kind: o.kind, startTimeUnixNano: nanos(o.row.time), endTimeUnixNano: nanos(Math.max(end.time, o.row.time)),
      attributes: attrs({ ...o.attributes, ...extra }), links: link(o.row), status: { code: failed ? STATUS_ERROR : STATUS_UNSET, ...(failed && end.error ? { message: String(end.error) } : {}) },
    });
  };
  for (const r of rows) {
    const spanId = spanIdOf(r.id);
    if (r.stage === 'reflector' && r.op === 'watch-start') {
      const slot = `watch ${String(r.name ?? '')}`;
      // A watch is a request to the API server that its answer streams back on: a CLIENT span (OTel's SpanKind).
      open.set(slot, { row: r, spanId, name: 'k8s.watch.connection', kind: SPAN_KIND_CLIENT, attributes: { 'k8s.resource': r.name, 'k8s.watch.resource_version': r.rv, 'k8s.watch.conn': r.conn } });
      connectionOf.set(String(r.name ?? ''), spanId);
      spanOfRow.set(r.id, spanId);
    } else if (r.stage === 'reflector' && (r.op === 'watch-close' || r.op === 'watch-error' || r.op === 'expired' || r.op === 'stopped')) {
      finish(`watch ${String(r.name ?? '')}`, r, { 'k8s.watch.end': r.op }, r.op === 'watch-error' || r.op === 'expired');
    } else if (r.stage === 'endpoint' && r.op === 'watch' && (r.event === 'start' || r.event === 'close')) {
      const slot = `watch ${String(r.client)} ${String(r.resource)} ${r.key ?? '*'}`;
      if (r.event === 'start') {
        open.set(slot, { row: r, spanId, name: 'k8s.watch.connection', kind: SPAN_KIND_CLIENT, attributes: { 'k8s.resource': r.resource, 'k8s.client': r.client, 'k8s.watch.resource_version': r.rv } });
        connectionOf.set(`${String(r.client)} ${String(r.resource)}`, spanId);
        spanOfRow.set(r.id, spanId);
      } else finish(slot, r, { 'k8s.watch.close_reason': r.reason });
    } else if (isChangeEvent(r)) {
      const parent = r.stage === 'endpoint' ? connectionOf.get(`${String(r.client)} ${String(r.resource)}`) : connectionOf.get(String(r.name ?? r.resource ?? ''));
      spanOfRow.set(r.id, spanId);
      spans.push({
        traceId, spanId, parentSpanId: parent ?? rootId, name: 'k8s.watch.event', kind: SPAN_KIND_INTERNAL, startTimeUnixNano: nanos(r.time), endTimeUnixNano: nanos(r.time),
        attributes: attrs({ 'k8s.watch.event.type': eventType(r), 'k8s.object.key': r.key, 'k8s.resource_version': r.rv, 'k8s.client': r.client, 'kwatch.echo_of': r.echoOf }), links: link(r),
      });
    } else if (r.stage === 'reconcile' && r.op === 'start') {
      const slot = `${String(r.controller ?? '')} ${r.key ?? ''}`;
      const reasons = Array.isArray(r.reasons) ? (r.reasons as { op?: string; reason?: string }[]).map((x) => x.reason ?? x.op).filter(Boolean) : typeof r.reason === 'string' ? [r.reason] : [];
      // A reconcile a kube-rs controller logged keeps its own object.ref; `span` says whether its log marked both ends.
      const ref = typeof r.objectRef === 'string' ? r.objectRef : `${String(r.controller ?? '')}/${r.key ?? ''}`;
      open.set(`reconcile ${slot}`, { row: r, spanId, name: 'reconciling object', kind: SPAN_KIND_INTERNAL, attributes: { 'object.ref': ref, 'object.reason': reasons.join(', ') || 'unknown', controller: r.controller } });
      running.set(slot, spanId);
      spanOfRow.set(r.id, spanId);
    } else if (r.stage === 'reconcile' && (r.op === 'success' || r.op === 'error' || r.op === 'requeue-after' || r.op === 'requeue' || r.op === 'end')) {
      const slot = `${String(r.controller ?? '')} ${r.key ?? ''}`;
      finish(`reconcile ${slot}`, r, { 'reconcile.result': r.op, 'kwatch.reconcile.id': r.reconcileID, 'kwatch.span': r.span }, r.op === 'error');
    } else if (isWrite(r)) {
      spanOfRow.set(r.id, spanId);
      // A write made inside a reconcile the controller logged (--exec) names it (`reconcile`, the start's id).
      const parent = r.stage === 'reconcile' ? running.get(`${String(r.controller ?? '')} ${r.key ?? ''}`) : typeof r.reconcile === 'number' ? spanOfRow.get(r.reconcile) : undefined;
      const ms = typeof r.ms === 'number' ? r.ms : 0;
      spans.push({
        traceId, spanId, parentSpanId: parent ?? rootId, name: `${String(r.verb ?? 'write')} ${String(r.resource ?? '')}`.trim(), kind: SPAN_KIND_CLIENT, startTimeUnixNano: nanos(r.time), endTimeUnixNano: nanos(r.time + ms),
        attributes: attrs({ 'k8s.object.key': objectKeyOf(r), 'k8s.resource_version': r.rv, 'http.response.status_code': writeCode(r), 'kwatch.writer': writerOf(r), 'kwatch.write.mode': r.mode, 'kwatch.write.fields': writeFields(r), 'kwatch.trigger': r.trigger }),
        links: link(r), status: { code: writeOk(r) ? STATUS_UNSET : STATUS_ERROR, ...(r.error ? { message: String(r.error) } : {}) },
      });
    }
  }
  // Still open when the run stopped (a watch running, a reconcile not ended): the span it would have been, cut at the end.
  for (const o of open.values()) {
    spans.push({ traceId, spanId: o.spanId, parentSpanId: rootId, name: o.name, kind: o.kind, startTimeUnixNano: nanos(o.row.time), endTimeUnixNano: nanos(Math.max(last, o.row.time)), attributes: attrs({ ...o.attributes, 'kwatch.open_at_end': true }), links: link(o.row) });
  }
  return spans;
}

/** The OTLP/JSON lines of a trace: each line one request with up to SPANS_PER_LINE spans. */
export function toOtlpLines(rows: readonly TraceRow[], service = 'kwatch', dropped = 0): string {
  const spans = toOtlpSpans(rows, undefined, dropped);
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += SPANS_PER_LINE) {
    lines.push(JSON.stringify({
      resourceSpans: [{ resource: { attributes: attrs({ 'service.name': service, 'kwatch.records.dropped': dropped || undefined }) }, scopeSpans: [{ scope: { name: 'kwatch' }, spans: spans.slice(i, i + SPANS_PER_LINE) }] }],
    }));
  }
  return lines.join('\n') + '\n';
}
