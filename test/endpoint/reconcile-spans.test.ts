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

describe('controller log lines: the edges (reconcile --exec)', () => {
  it('reads every controller-runtime end, the message under "message", and a line after a prefix', () => {
    expect(parseReconcileLogLine(zap('Reconcile done, requeueing', 'u1'))).toMatchObject({ phase: 'end', outcome: 'requeue' });
    expect(parseReconcileLogLine(zap('fetching the object', 'u1'))).toMatchObject({ phase: 'inside', key: 'ns/a', spanId: 'u1' });
    const logr = JSON.stringify({ message: 'Reconciling', reconcileID: 'u3', name: 'a', namespace: 'ns' });
    expect(parseReconcileLogLine(logr)).toMatchObject({ phase: 'start', key: 'ns/a' });
    expect(parseReconcileLogLine(`manager stderr: ${zap('Reconciling', 'u4')}`)).toMatchObject({ phase: 'start', spanId: 'u4' });
    // Fields of another type are not taken for what they are not.
    expect(parseReconcileLogLine(zap('Reconciler error', 'u1', 'a', { error: { code: 1 }, controller: 7 }))).toEqual({ format: 'controller-runtime', phase: 'end', outcome: 'error', spanId: 'u1', key: 'ns/a', keys: ['ns/a'] });
  });

  it('names the object from the flat fields, else the request logged under the kind, Request or request', () => {
    const line = (o: Record<string, unknown>) => parseReconcileLogLine(JSON.stringify({ msg: 'Reconciling', reconcileID: 'u', ...o }))?.key;
    expect(line({ name: 'n', namespace: '' })).toBe('n');
    expect(line({ name: 'n' })).toBe('n');
    expect(line({ name: '', namespace: 'ns', Request: { name: 'r', namespace: 'x' } })).toBe('x/r');
    expect(line({ name: 5, controllerKind: 'Widget', Widget: { Name: 'w', Namespace: 'y' } })).toBe('y/w');
    expect(line({ controllerKind: 'Widget', Widget: { kind: 'no name' }, Request: null, request: { name: 'q' } })).toBe('q');
    expect(line({ controllerKind: 5, Request: { name: 'r', namespace: 5 } })).toBe('r');
    // No object named, no reconcile ID, an empty or non-string one: not a reconcile line.
    expect(parseReconcileLogLine(JSON.stringify({ msg: 'Reconciling', reconcileID: 'u', controllerKind: 'Widget', Widget: 'w' }))).toBeUndefined();
    expect(parseReconcileLogLine(JSON.stringify({ msg: 'Reconciling', reconcileID: '', name: 'a' }))).toBeUndefined();
    expect(parseReconcileLogLine(JSON.stringify({ msg: 'Reconciling', reconcileID: 5, name: 'a' }))).toBeUndefined();
  });

  it('ignores a line too long to be a log line (64 KiB), and kube-rs span text it cannot read', () => {
    expect(parseReconcileLogLine(zap('Reconciling', 'u1', 'a', { pad: 'x'.repeat(64 * 1024) }))).toBeUndefined();
    expect(parseReconcileLogLine('reconciling object{garbage')).toBeUndefined();
    expect(parseReconcileLogLine('reconciling object{object.ref=Node.v1./ object.reason=x}: y')).toBeUndefined();
  });

  it('reads kube-rs\'s new and close events only as whole words at the line\'s end or before time.', () => {
    expect(parseReconcileLogLine(kubeRs('new object seen'))?.phase).toBe('inside');
    expect(parseReconcileLogLine(kubeRs('connection closed'))?.phase).toBe('inside');
    expect(parseReconcileLogLine(kubeRs('close  time.busy=1ms'))?.phase).toBe('end');
    expect(parseReconcileLogLine('INFO reconciling object{object.ref=ConfigMap.v1./a.ns object.reason=x} new')?.phase).toBe('start');
  });

  it('reads a cluster-scoped ref and a name with a leading or trailing dot as the name alone', () => {
    const keys = (ref: string) => parseReconcileLogLine(`INFO reconciling object{object.ref=${ref} object.reason=x}: y`)?.keys;
    expect(keys('Node.v1./n1')).toEqual(['n1']);
    expect(keys('Thing.v1.example.com/.hidden')).toEqual(['.hidden']);
    expect(keys('Thing.v1.example.com/name.')).toEqual(['name.']);
    expect(keys('ConfigMap.v1./a.ns')).toEqual(['ns/a', 'a.ns']);
  });
});

describe('reconcile spans: the edges', () => {
  it('ignores other output, and names watches the reconcile opens, a single reconcile\'s requests whatever their key, and endpoint records only', () => {
    const { got, spans, request } = setup();
    spans.line('plain output, no reconcile here');
    expect(got).toEqual([]);
    spans.line(zap('Reconciling', 'u1'));
    const start = got.find((r) => r.op === 'start')!;
    expect(request('watch', 'ns/a', { event: 'start' }).reconcile).toBe(start.id);
    expect(request('list', 'ns/other').reconcile).toBe(start.id);
    expect(request('http', undefined).reconcile).toBe(start.id);
    const informer: TraceRecord = { time: 0, stage: 'reflector', op: 'list', key: 'ns/a' };
    new ReconcileAttributingTracer(new Tracer(), spans).emit(informer);
    expect(informer.reconcile).toBeUndefined();
  });

  it('a second start of an open reconcile ends it: controller-runtime\'s next reconcileID of the key, kube-rs\'s next `new`', () => {
    const { got, spans } = setup();
    spans.line(zap('Reconciling', 'u1'));
    spans.line(zap('Reconciling', 'u2'));
    spans.line(kubeRs('new', 'b'));
    spans.line(kubeRs('new', 'b'));
    spans.end();
    expect(got.filter((r) => r.stage === 'reconcile').map((r) => `${r.op} ${String(r.reconcileID ?? r.objectRef)} ${String(r.logged)}`)).toEqual([
      'start u1 true', 'end u1 false', 'start u2 true',
      'start ConfigMap.v1./b.ns true', 'end ConfigMap.v1./b.ns false', 'start ConfigMap.v1./b.ns true',
      'end u2 false', 'end ConfigMap.v1./b.ns false',
    ]);
    expect(got.find((r) => r.op === 'start' && r.objectRef !== undefined)).toMatchObject({ from: 'kube-rs', objectRef: 'ConfigMap.v1./b.ns', reason: 'object updated' });
    expect(got.find((r) => r.op === 'start' && r.objectRef !== undefined)?.reconcileID).toBeUndefined();
  });

  it('says how long a requeue waits, and passes subscriptions through to the trace', () => {
    const { got, spans } = setup();
    spans.line(zap('Reconciling', 'u1'));
    spans.line(zap('Reconcile done, requeueing after 30s', 'u1'));
    expect(got.find((r) => r.op === 'requeue-after')).toMatchObject({ requeueAfter: '30s', span: 'exact' });
    const tracer = new Tracer();
    const seen: TraceRecord[] = [];
    new ReconcileAttributingTracer(tracer, spans).subscribe((r) => seen.push(r));
    tracer.emit({ time: 0, stage: 'endpoint', op: 'http' });
    expect(seen).toHaveLength(1);
  });
});
