// A controller's own log lines that say where a reconcile starts and ends, read from the child's output under
// `reconcile --exec`: controller-runtime's zap JSON and kube-rs's tracing fmt. Pure parsing; reconcile-spans.ts turns
// the lines into spans.
//
// controller-runtime (pkg/internal/controller/controller.go, reconcileHandler) logs, at V(5), "Reconciling" before it
// calls Reconcile, then one of "Reconcile successful", "Reconcile done, requeueing", "Reconcile done, requeueing after
// D", or "Reconciler error" (at error level, always). Every line logged through the reconcile's context carries
// `reconcileID`, `controller`, `namespace`, `name` and the request under the kind's name ({"ConfigMap":{"name":…}}).
//
// kube-rs (kube-runtime/src/controller/mod.rs, applier) runs each reconcile inside the span `reconciling object` with
// fields `object.ref` (Kind.version.group/name[.namespace], ObjectRef's Display) and `object.reason`; the fmt
// subscriber prefixes every line logged inside it with `reconciling object{object.ref=… object.reason=…}:`, and with
// span events on it prints `new` when the span starts and `close time.busy=…` when it ends.

export type ReconcileLogFormat = 'controller-runtime' | 'kube-rs';

/** How a reconcile ended, in the words of kwatch's reconcile ops. */
export type ReconcileOutcome = 'success' | 'requeue' | 'requeue-after' | 'error';

export interface ReconcileLogLine {
  format: ReconcileLogFormat;
  /** `start`: the reconcile begins here; `end`: it ended here (with `outcome` when the line says); `inside`: a line logged during it. */
  phase: 'start' | 'end' | 'inside';
  /** controller-runtime's reconcileID; kube-rs has none (one reconcile per object at a time): the object ref. */
  spanId: string;
  /** namespace/name, or name; kube-rs's ref without a namespace may leave a dotted name ambiguous: see `keys`. */
  key: string;
  /** Every key the line may name, best first (kube-rs: `name.ns` is either a namespaced name or a dotted name). */
  keys: string[];
  controller?: string;
  /** kube-rs's object.reason. */
  reason?: string;
  outcome?: ReconcileOutcome;
  /** controller-runtime: the requeue delay as logged (e.g. "5s"); the error's text on "Reconciler error". */
  requeueAfter?: string;
  error?: string;
}

// ANSI colours a terminal-minded logger adds (kube-rs's fmt with ansi on, zap's console encoder).
// eslint-disable-next-line no-control-regex -- the escape character is what this matches
const SGR = /\x1b\[[0-9;]*m/g;
const KUBE_RS_SPAN = /reconciling object\{object\.ref=(\S+) object\.reason=(.*?)\}(?::|\s|$)/;
const REQUEUE_AFTER = /^Reconcile done, requeueing after (\S+)/;

/** The reconcile this line belongs to, or undefined for every other line. */
export function parseReconcileLogLine(raw: string): ReconcileLogLine | undefined {
  if (raw.length > 64 * 1024) return undefined;
  const line = raw.includes('\x1b') ? raw.replace(SGR, '') : raw;
  if (line.includes('"reconcileID"')) return controllerRuntimeLine(line);
  if (line.includes('reconciling object{')) return kubeRsLine(line);
  return undefined;
}

function controllerRuntimeLine(line: string): ReconcileLogLine | undefined {
  const brace = line.indexOf('{');
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line.slice(brace)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null || typeof o.reconcileID !== 'string' || o.reconcileID === '') return undefined;
  const key = requestKey(o);
  if (key === undefined) return undefined;
  const msg = typeof o.msg === 'string' ? o.msg : typeof o.message === 'string' ? o.message : '';
  const base = { format: 'controller-runtime' as const, spanId: o.reconcileID, key, keys: [key], ...(typeof o.controller === 'string' ? { controller: o.controller } : {}) };
  if (msg === 'Reconciling') return { ...base, phase: 'start' };
  if (msg === 'Reconcile successful') return { ...base, phase: 'end', outcome: 'success' };
  if (msg === 'Reconcile done, requeueing') return { ...base, phase: 'end', outcome: 'requeue' };
  const after = REQUEUE_AFTER.exec(msg);
  if (after) return { ...base, phase: 'end', outcome: 'requeue-after', requeueAfter: after[1] };
  if (msg === 'Reconciler error') return { ...base, phase: 'end', outcome: 'error', ...(typeof o.error === 'string' ? { error: o.error } : {}) };
  return { ...base, phase: 'inside' };
}

/** namespace/name from the flat fields, else from the request object logged under the kind's name (or `Request`). */
function requestKey(o: Record<string, unknown>): string | undefined {
  const fromParts = (ns: unknown, name: unknown) => (typeof name === 'string' && name !== '' ? (typeof ns === 'string' && ns !== '' ? `${ns}/${name}` : name) : undefined);
  const flat = fromParts(o.namespace, o.name);
  if (flat !== undefined) return flat;
  const kind = typeof o.controllerKind === 'string' ? o[o.controllerKind] : undefined;
  for (const req of [kind, o.Request, o.request]) {
    if (typeof req === 'object' && req !== null) {
      const r = req as Record<string, unknown>;
      const k = fromParts(r.namespace ?? r.Namespace, r.name ?? r.Name);
      if (k !== undefined) return k;
    }
  }
  return undefined;
}

function kubeRsLine(line: string): ReconcileLogLine | undefined {
  const m = KUBE_RS_SPAN.exec(line);
  if (!m) return undefined;
  const ref = m[1];
  const slash = ref.indexOf('/');
  if (slash < 0 || slash === ref.length - 1) return undefined;
  const keys = refKeys(ref.slice(slash + 1));
  const rest = line.slice(m.index + m[0].length);
  // With span events on, the fmt subscriber's own `new` and `close …` lines (after the span's target, if printed).
  const event = /(?:^|\s)(new|close)(?:\s+time\.|\s*$)/.exec(rest);
  const phase = event?.[1] === 'new' ? 'start' : event?.[1] === 'close' ? 'end' : 'inside';
  // The close line does not say how the reconcile went (kube-rs hands the result to the caller): no outcome.
  return { format: 'kube-rs', phase, spanId: ref, key: keys[0], keys, reason: m[2] };
}

/**
 * `name.namespace` (ObjectRef's Display): a namespace is a DNS label, without dots, so the last dot splits them; a
 * cluster-scoped object's dotted name reads the same way, so the whole text is the second choice.
 */
function refKeys(nameAndNamespace: string): string[] {
  const dot = nameAndNamespace.lastIndexOf('.');
  if (dot <= 0 || dot === nameAndNamespace.length - 1) return [nameAndNamespace];
  return [`${nameAndNamespace.slice(dot + 1)}/${nameAndNamespace.slice(0, dot)}`, nameAndNamespace];
}
