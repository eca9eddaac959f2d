// Reconcile spans of a controller process under `reconcile --exec`, from its own log lines (reconcile-log.ts): a
// `reconcile start` record where a reconcile begins and a `reconcile success|requeue|requeue-after|error|end` record
// where it ends, and every request the controller makes meanwhile names the reconcile it came from (`reconcile`, the
// start's id). Without such lines nothing here happens: the endpoint's writes keep `trigger: inferred`.
//
// A span is exact when its start and its end were both logged. When they were not (controller-runtime below V(5)
// logs neither "Reconciling" nor "Reconcile successful"; kube-rs without span events logs neither `new` nor
// `close`), the span runs from the first to the last line logged inside it, and its records say so: `logged: false`
// on the side that was inferred and `span: inferred` on the end. controller-runtime never runs one request twice at
// once, nor does kube-rs one object: the next reconcile of the same key ends an open one.
import { ForwardingTracer, type Stage, type Tracer, type TraceRecord } from '../informer/trace.js';
import { parseReconcileLogLine, type ReconcileLogLine, type ReconcileOutcome } from './reconcile-log.js';

interface OpenSpan {
  line: ReconcileLogLine;
  start: TraceRecord;
  startedAt: number;
  lastLineAt: number;
  requests: number;
}

/** Endpoint ops that are requests the controller made (a watch's `start`, not the events it was sent). */
const REQUEST_OPS = new Set(['http', 'list', 'write', 'question']);

export class ReconcileSpans {
  /** spanId → the reconcile running under it. */
  private readonly open = new Map<string, OpenSpan>();
  /** `controller key` → spanId: the next reconcile of a key ends the one before. */
  private readonly byRequest = new Map<string, string>();

  constructor(
    private readonly tracer: Tracer,
    private readonly now: () => number,
    /** The controller's name when its lines give none (controller-runtime's `controller` field, else this). */
    private readonly defaultController: string,
  ) {}

  /** One line of the controller's output (stdout or stderr), as it was printed. */
  line(text: string): void {
    const l = parseReconcileLogLine(text);
    if (l === undefined) return;
    const at = this.now();
    let span = this.open.get(l.spanId);
    // kube-rs names no reconcile: a new reason for the same object is a new reconcile.
    if (span && (l.phase === 'start' || (l.format === 'kube-rs' && l.reason !== span.line.reason))) {
      this.close(span, undefined, span.lastLineAt, false);
      span = undefined;
    }
    if (span === undefined) span = this.begin(l, at);
    span.lastLineAt = at;
    if (l.phase === 'end') this.close(span, l, at, true);
  }

  /** An endpoint record: a request made while reconciles run is named after the one it belongs to. */
  attribute(r: TraceRecord): void {
    if (this.open.size === 0 || r.stage !== 'endpoint' || !(REQUEST_OPS.has(r.op) || (r.op === 'watch' && r.event === 'start'))) return;
    let chosen: OpenSpan | undefined;
    if (this.open.size === 1) chosen = this.open.values().next().value;
    else if (r.key !== undefined) {
      // Several at once (MaxConcurrentReconciles > 1): only a request for a reconcile's own key is known to be its.
      for (const s of this.open.values()) {
        if (s.line.keys.includes(r.key)) {
          chosen = s;
          break;
        }
      }
    }
    if (chosen === undefined) return;
    chosen.requests++;
    if (typeof chosen.start.id === 'number') r.reconcile = chosen.start.id;
  }

  /** The run ended: reconciles still open end at their last line, inferred. */
  end(): void {
    for (const span of [...this.open.values()]) this.close(span, undefined, span.lastLineAt, false);
  }

  private begin(l: ReconcileLogLine, at: number): OpenSpan {
    const controller = l.controller ?? this.defaultController;
    const request = `${controller} ${l.key}`;
    const before = this.byRequest.get(request);
    const previous = before !== undefined ? this.open.get(before) : undefined;
    if (previous) this.close(previous, undefined, previous.lastLineAt, false);
    const start: TraceRecord = {
      time: at,
      stage: 'reconcile' satisfies Stage,
      op: 'start',
      key: l.key,
      controller,
      from: l.format,
      ...(l.format === 'controller-runtime' ? { reconcileID: l.spanId } : { objectRef: l.spanId, reason: l.reason }),
      logged: l.phase === 'start',
    };
    if (this.tracer.enabled) this.tracer.emit(start);
    const span: OpenSpan = { line: l, start, startedAt: at, lastLineAt: at, requests: 0 };
    this.open.set(l.spanId, span);
    this.byRequest.set(request, l.spanId);
    return span;
  }

  private close(span: OpenSpan, endLine: ReconcileLogLine | undefined, at: number, logged: boolean): void {
    this.open.delete(span.line.spanId);
    const request = `${String(span.start.controller)} ${span.line.key}`;
    if (this.byRequest.get(request) === span.line.spanId) this.byRequest.delete(request);
    if (!this.tracer.enabled) return;
    const outcome: ReconcileOutcome | 'end' = endLine?.outcome ?? 'end';
    this.tracer.emit({
      time: at,
      stage: 'reconcile',
      op: outcome,
      key: span.line.key,
      controller: span.start.controller,
      from: span.line.format,
      ...(span.line.format === 'controller-runtime' ? { reconcileID: span.line.spanId } : { objectRef: span.line.spanId }),
      ms: Math.max(0, at - span.startedAt),
      requests: span.requests,
      logged,
      span: logged && span.start.logged === true ? 'exact' : 'inferred',
      ...(endLine?.requeueAfter !== undefined ? { requeueAfter: endLine.requeueAfter } : {}),
      ...(endLine?.error !== undefined ? { error: endLine.error } : {}),
    });
  }
}

/**
 * The tracer the endpoint emits into under --exec: each of its records passes `spans.attribute` on its way to
 * `target`, so that every listener (and the cause linker) sees the reconcile a request belongs to.
 */
export class ReconcileAttributingTracer extends ForwardingTracer {
  constructor(
    target: Tracer,
    private readonly spans: ReconcileSpans,
  ) {
    super(target);
  }

  override emit(record: TraceRecord): void {
    this.spans.attribute(record);
    this.target.emit(record);
  }

  override subscribe(listener: (record: TraceRecord) => void, interest?: Parameters<Tracer['subscribe']>[1]): () => void {
    return this.target.subscribe(listener, interest);
  }
}
