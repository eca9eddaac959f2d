import { describe, expect, it } from 'vitest';
import { parseReconcileLogLine } from '../../src/endpoint/reconcile-log.js';
import { ReconcileAttributingTracer, ReconcileSpans } from '../../src/endpoint/reconcile-spans.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';

/** controller-runtime's zap JSON line, as its production encoder prints one. */
const zap = (msg: string, id: string, name = 'a', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ level: 'info', ts: '2026-11-28T16:00:00Z', logger: 'controller', msg, controller: 'configmap', controllerGroup: '', controllerKind: 'ConfigMap', ConfigMap: { name, namespace: 'ns' }, namespace: 'ns', name, reconcileID: id, ...extra });
/** kube-rs's tracing fmt line inside its `reconciling object` span. */
const kubeRs = (text: string, name = 'a', reason = 'object updated') => `2026-11-28T16:00:00.000000Z  INFO reconciling object{object.ref=ConfigMap.v1./${name}.ns object.reason=${reason}}: demo: ${text}`;

function setup() {
  const tracer = new Tracer();
  const got: TraceRecord[] = [];
  tracer.subscribe((r) => got.push(r));
  let now = 1000;
  const spans = new ReconcileSpans(tracer, () => now, 'ctl');
  const endpoint = new ReconcileAttributingTracer(tracer, spans);
  const request = (op: string, key?: string, extra: Record<string, unknown> = {}) => {
    const r: TraceRecord = { time: now, stage: 'endpoint', op, key, client: 'ctl', resource: 'configmaps', ...extra };
    endpoint.emit(r);
    return r;
  };
  return { got, spans, request, tick: (ms: number) => (now += ms) };
}

describe('controller log lines (reconcile --exec)', () => {
  it('reads controller-runtime\'s zap lines and kube-rs\'s span lines, and nothing else', () => {
    expect(parseReconcileLogLine(zap('Reconciling', 'u1'))).toMatchObject({ format: 'controller-runtime', phase: 'start', spanId: 'u1', key: 'ns/a', controller: 'configmap' });
    expect(parseReconcileLogLine(zap('Reconcile done, requeueing after 5s', 'u1'))).toMatchObject({ phase: 'end', outcome: 'requeue-after', requeueAfter: '5s' });
    expect(parseReconcileLogLine(zap('Reconciler error', 'u1', 'a', { level: 'error', error: 'boom' }))).toMatchObject({ phase: 'end', outcome: 'error', error: 'boom' });
    // The request under the kind's name when namespace/name are not flat fields.
    const nested = JSON.stringify({ msg: 'Reconcile successful', controller: 'c', controllerKind: 'Widget', Widget: { name: 'w', namespace: 'x' }, reconcileID: 'u2' });
    expect(parseReconcileLogLine(nested)).toMatchObject({ phase: 'end', outcome: 'success', key: 'x/w' });
    expect(parseReconcileLogLine(kubeRs('updating'))).toMatchObject({ format: 'kube-rs', phase: 'inside', key: 'ns/a', reason: 'object updated', spanId: 'ConfigMap.v1./a.ns' });
    expect(parseReconcileLogLine(kubeRs('close time.busy=1.2ms time.idle=40µs'))).toMatchObject({ phase: 'end' });
    expect(parseReconcileLogLine(`\x1b[2m2026\x1b[0m \x1b[32m INFO\x1b[0m \x1b[1mreconciling object\x1b[0m{\x1b[3mobject.ref\x1b[0m\x1b[2m=\x1b[0mNode.v1./n1.example.com \x1b[3mobject.reason\x1b[0m\x1b[2m=\x1b[0mrelated object updated: Pod.v1./p.ns\x1b[0m}\x1b[2m:\x1b[0m x: new`)).toMatchObject({ phase: 'start', keys: ['com/n1.example', 'n1.example.com'], reason: 'related object updated: Pod.v1./p.ns' });
    for (const other of ['', 'Reconciling', '{"msg":"Reconciling"}', '{"reconcileID": "x", broken', 'reconciling object{object.ref=NoSlash object.reason=x}: y']) expect(parseReconcileLogLine(other)).toBeUndefined();
  });

  it('makes an exact span from "Reconciling" to "Reconcile successful", and names it on the requests made inside it', () => {
    const { got, spans, request, tick } = setup();
    request('http', 'ns/a');
    spans.line(zap('Reconciling', 'u1'));
    const get = request('http', 'ns/a', { method: 'GET' });
    tick(7);
    const write = request('write', 'ns/a', { verb: 'update', rv: '12', code: 200 });
    const delivered = request('watch', 'ns/a', { event: 'MODIFIED', rv: '12' });
    spans.line(zap('Reconcile successful', 'u1'));
    const after = request('http', 'ns/a');
    const start = got.find((r) => r.stage === 'reconcile' && r.op === 'start')!;
    const end = got.find((r) => r.stage === 'reconcile' && r.op === 'success')!;
    expect(start).toMatchObject({ key: 'ns/a', controller: 'configmap', from: 'controller-runtime', reconcileID: 'u1', logged: true });
    expect(end).toMatchObject({ key: 'ns/a', reconcileID: 'u1', ms: 7, requests: 2, logged: true, span: 'exact', cause: [start.id] });
    expect(get.reconcile).toBe(start.id);
    // A write made inside the span names the reconcile as its cause (not the events it was inferred from).
    expect(write).toMatchObject({ reconcile: start.id, cause: [start.id] });
    expect(delivered.reconcile).toBeUndefined();
    expect(after.reconcile).toBeUndefined();
    expect(got[0].reconcile).toBeUndefined();
  });

  it('the next reconcile starts with the change the controller was sent, so a loop reads write → echo → reconcile → write', () => {
    const { got, spans, request } = setup();
    spans.line(zap('Reconciling', 'u1'));
    const w1 = request('write', 'ns/a', { verb: 'update', rv: '20', code: 200 });
    spans.line(zap('Reconcile successful', 'u1'));
    const echo = request('watch', 'ns/a', { event: 'MODIFIED', type: 'MODIFIED', rv: '20' });
    spans.line(zap('Reconciling', 'u2'));
    const w2 = request('write', 'ns/a', { verb: 'update', rv: '21', code: 200 });
    const start2 = got.find((r) => r.op === 'start' && r.reconcileID === 'u2')!;
    expect(echo.echoOf).toBe(w1.id);
    expect(start2.cause).toEqual([echo.id]);
    expect(w2.cause).toEqual([start2.id]);
  });

  it('with several reconciles open, a request goes to the one of its key, or to none', () => {
    const { got, spans, request } = setup();
    spans.line(zap('Reconciling', 'u1', 'a'));
    spans.line(zap('Reconciling', 'u2', 'b'));
    const toB = request('write', 'ns/b', { verb: 'patch', rv: '5', code: 200 });
    const unknown = request('http', 'ns/c');
    const startB = got.find((r) => r.op === 'start' && r.reconcileID === 'u2')!;
    expect(toB.reconcile).toBe(startB.id);
    expect(unknown.reconcile).toBeUndefined();
  });

  it('marks what it inferred: a span without its start line, one without its end, and kube-rs spans without span events', () => {
    const { got, spans, request, tick } = setup();
    // controller-runtime below V(5): only the reconciler's own lines and the error.
    spans.line(zap('fetching', 'u1'));
    tick(3);
    spans.line(zap('Reconciler error', 'u1', 'a', { error: 'conflict' }));
    // kube-rs without span events: lines inside; a new reason is a new reconcile; the run's end closes the last.
    spans.line(kubeRs('patching', 'b'));
    request('write', 'ns/b', { verb: 'patch', rv: '9', code: 200 });
    tick(2);
    spans.line(kubeRs('patched', 'b'));
    tick(5);
    spans.line(kubeRs('again', 'b', 'reconciler requested retry'));
    spans.end();
    const ops = got.filter((r) => r.stage === 'reconcile').map((r) => `${r.op} ${r.key} ${String(r.logged)}${r.span ? ` ${String(r.span)}` : ''}`);
    expect(ops).toEqual([
      'start ns/a false',
      'error ns/a true inferred',
      'start ns/b false',
      'end ns/b false inferred',
      'start ns/b false',
      'end ns/b false inferred',
    ]);
    const ends = got.filter((r) => r.stage === 'reconcile' && r.op !== 'start');
    expect(ends[0]).toMatchObject({ error: 'conflict', ms: 3 });
    // The inferred end is the span's last line, not the moment the next one began.
    expect(ends[1]).toMatchObject({ ms: 2, requests: 1, objectRef: 'ConfigMap.v1./b.ns' });
  });
});
