// Ids and causes for trace records: which earlier record made this one happen. The Tracer runs every record it
// emits to a listener through one CauseLinker, so `-o ndjson`, `--trace-out` and `kwatch trace why` all see the same
// `id`, `cause` and `echoOf`. The stages emit in causal order within a run (watch event → fifo delta → pop → indexer →
// handler → workqueue add → get → reconcile start → write), so each cause is the latest matching record before it:
// nothing is guessed across processes except what the endpoint already infers (`after=`, trigger=inferred).
import type { TraceRecord } from './trace.js';

/** Writes whose echo is still awaited are forgotten past this many (a write whose result is never watched). */
const MAX_AWAITED_ECHOES = 100_000;
/** Watch events kept in case a write's answer names their version after they arrived (a race of a few ms). */
const MAX_EARLY_ECHOES = 10_000;
/** Endpoint watch events kept for naming the causes of a client's writes. */
const MAX_ENDPOINT_EVENTS = 100_000;

const DELTA_OPS = new Set(['Added', 'Updated', 'Deleted', 'Replaced', 'Sync']);
const QUEUE_ADD_OPS = new Set(['add', 'dedup', 'add-after', 'add-rate-limited', 'requeue']);
const CHANGE_EVENTS = new Set(['ADDED', 'MODIFIED', 'DELETED']);

export class CauseLinker {
  // Per linker, so that a replay traces the same ids every time. A nested tracer (a replay's inner pipeline) links
  // its records before they reach the outer one, which then leaves them as they are.
  private nextId = 1;
  /** key → the id of the latest record of a stage for it, with the rv it carried. */
  // Records are kept by reference and ids one at a time (an array only once there are two): one event makes a
  // record per stage, and linking them must not cost an allocation each (see bench/sync.js, -o ndjson).
  private lastWatch = new Map<string, TraceRecord>();
  private pendingDeltas = new Map<string, number | number[]>();
  private lastPop = new Map<string, number>();
  private lastHandler = new Map<string, TraceRecord>();
  /** The newest handler call of any key: a map function turns one key's event into another key's request. */
  private newestHandler: number | undefined;
  /** `controller key` → the adds merged since the key was last handed out, then those it was handed out with. */
  private queued = new Map<string, Map<string, number | number[]>>();
  private handedOut = new Map<string, Map<string, number | number[]>>();
  /** controller → key → the reconcile running for it (its start's id). */
  private running = new Map<string, Map<string, number>>();
  /** Whether any write stored a version yet: until one did, no event can be an echo and none is kept as one. */
  private writesSeen = false;
  /** `key@rv` → the write that stored that version and awaits its echo. */
  private awaitingEcho = new Map<string, number>();
  /** `rv` of an echo already seen (the write's answer came after its watch event) → the event's id. */
  private earlyEchoes = new Map<string, number>();
  /** Endpoint: `client TYPE resource key@rv` → the id of that watch event delivered to that client. */
  private endpointEvents = new Map<string, number>();
  /** The listed state (list page / listed) a Replaced delta comes from, per informer name. */
  private lastListed = new Map<string, number>();

  /** Gives the record its id and, when something earlier caused it, `cause` (ids) and `echoOf`. */
  link(r: TraceRecord): void {
    if (typeof r.id === 'number') return;
    const id = this.nextId++;
    r.id = id;
    switch (r.stage) {
      case 'reflector':
        if (r.op === 'list-page' || r.op === 'listed') this.lastListed.set(String(r.name ?? ''), id);
        return;
      case 'watch':
        return this.watchEvent(r, id);
      case 'fifo':
        return this.fifo(r, id);
      case 'indexer': {
        const pop = r.key !== undefined ? this.lastPop.get(r.key) : undefined;
        if (pop !== undefined) r.cause = [pop];
        return;
      }
      case 'handler':
        return this.handler(r, id);
      case 'workqueue':
        return this.workqueue(r, id);
      case 'reconcile':
        return this.reconcile(r, id);
      case 'endpoint':
        return this.endpoint(r, id);
      default:
        return;
    }
  }

  private watchEvent(r: TraceRecord, id: number): void {
    if (r.key === undefined || !CHANGE_EVENTS.has(r.op)) return;
    this.lastWatch.set(r.key, r);
    if (this.writesSeen) this.markEcho(r, id);
  }

  private fifo(r: TraceRecord, id: number): void {
    const key = r.key;
    if (key === undefined) return;
    if (DELTA_OPS.has(r.op)) {
      let cause: number | undefined;
      if (r.op === 'Replaced') cause = this.lastListed.get(String(r.name ?? r.resource ?? '')) ?? lastOf(this.lastListed);
      else {
        const w = this.lastWatch.get(key);
        if (w && (r.rv === undefined || w.rv === r.rv)) cause = w.id as number;
      }
      if (cause !== undefined) r.cause = [cause];
      addId(this.pendingDeltas, key, id);
    } else if (r.op === 'pop') {
      const pending = this.pendingDeltas.get(key);
      if (pending !== undefined) r.cause = typeof pending === 'number' ? [pending] : pending;
      this.pendingDeltas.delete(key);
      this.lastPop.set(key, id);
    }
  }

  private handler(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const pop = this.lastPop.get(r.key);
    if (pop !== undefined) r.cause = [pop];
    this.lastHandler.set(r.key, r);
    this.newestHandler = id;
  }

  private workqueue(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const controller = String(r.controller ?? r.queue ?? '');
    if (QUEUE_ADD_OPS.has(r.op)) {
      const cause = this.queueAddCause(r);
      if (cause !== undefined) r.cause = [cause];
      addId(inner(this.queued, controller), r.key, id);
    } else if (r.op === 'get') {
      const queued = inner(this.queued, controller);
      const ids = queued.get(r.key);
      if (ids !== undefined) inner(this.handedOut, controller).set(r.key, ids);
      else this.handedOut.get(controller)?.delete(r.key);
      queued.delete(r.key);
    }
  }

  /** What put a key into the queue: the write whose own result came back, the handler call, or the run that asked again. */
  private queueAddCause(r: TraceRecord): number | undefined {
    const reason = (r.reason ?? {}) as { key?: string; rv?: string; own?: boolean };
    const key = reason.key ?? r.key!;
    const rv = reason.rv ?? r.rv;
    // A write stored in kwatch's overlay comes back as the queue add itself, not as a watch event: that add is its echo.
    if (rv !== undefined && this.writesSeen) {
      const write = this.awaitingEcho.get(`${key}@${rv}`);
      if (write !== undefined) {
        this.awaitingEcho.delete(`${key}@${rv}`);
        r.echoOf = write;
        return write;
      }
    }
    const h = this.lastHandler.get(key);
    if (h && (rv === undefined || h.rv === rv)) return h.id as number;
    if (r.op === 'requeue' || r.op === 'add-after' || r.op === 'add-rate-limited') return this.running.get(String(r.controller ?? r.queue ?? ''))?.get(r.key!);
    return this.newestHandler;
  }

  private reconcile(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const controller = String(r.controller ?? '');
    if (r.op === 'start') {
      const handedOut = this.handedOut.get(controller);
      const merged = handedOut?.get(r.key);
      if (merged !== undefined) r.cause = typeof merged === 'number' ? [merged] : merged;
      handedOut?.delete(r.key);
      inner(this.running, controller).set(r.key, id);
    } else if (r.op === 'write') {
      const run = this.running.get(controller)?.get(r.key);
      if (run !== undefined) r.cause = [run];
      this.awaitEcho(r, id, String(r.target ?? r.key));
    } else if (r.op === 'success' || r.op === 'error' || r.op === 'requeue-after' || r.op === 'loop') {
      const run = this.running.get(controller)?.get(r.key);
      if (run !== undefined) r.cause = [run];
    }
  }

  private endpoint(r: TraceRecord, id: number): void {
    if (r.op === 'watch' && r.key !== undefined && typeof r.event === 'string' && CHANGE_EVENTS.has(r.event)) {
      const desc = `${String(r.client)} ${r.event} ${String(r.resource)} ${r.key}${r.rv !== undefined ? `@${String(r.rv)}` : ''}`;
      this.endpointEvents.set(desc, id);
      if (this.endpointEvents.size > MAX_ENDPOINT_EVENTS) this.endpointEvents.delete(this.endpointEvents.keys().next().value!);
      this.markEcho(r, id);
    } else if (r.op === 'write' && r.key !== undefined) {
      // The events the endpoint inferred the write reacted to, by the description it gave them (see wire-trace.ts).
      const after = Array.isArray(r.after) ? (r.after as string[]) : [];
      const causes: number[] = [];
      for (const a of after) {
        const found = this.endpointEvents.get(`${String(r.client)} ${a.replace(/ \(own write\)$/, '')}`);
        if (found !== undefined) causes.push(found);
      }
      if (causes.length) r.cause = causes;
      this.awaitEcho(r, id, r.key);
    }
  }

  /** A write that stored a version: the first record to deliver that version back is its echo. */
  private awaitEcho(r: TraceRecord, id: number, key: string): void {
    // A refused write (a reconcile write's `status`, an endpoint write's `code`) stored nothing: no echo comes.
    const code = typeof r.code === 'number' ? r.code : typeof r.status === 'number' ? r.status : undefined;
    if (typeof r.rv !== 'string' || r.rv === '' || r.error !== undefined || (code !== undefined && (code < 200 || code >= 300))) return;
    this.writesSeen = true;
    const early = this.earlyEchoes.get(`${key}@${r.rv}`);
    if (early !== undefined) {
      // The watch event came first (it raced the write's answer): the write names it instead.
      r.echo = early;
      this.earlyEchoes.delete(`${key}@${r.rv}`);
      return;
    }
    this.awaitingEcho.set(`${key}@${r.rv}`, id);
    if (this.awaitingEcho.size > MAX_AWAITED_ECHOES) this.awaitingEcho.delete(this.awaitingEcho.keys().next().value!);
  }

  private markEcho(r: TraceRecord, id: number): void {
    const slot = `${r.key!}@${String(r.rv)}`;
    const write = this.awaitingEcho.get(slot);
    if (write !== undefined) {
      r.echoOf = write;
      // Every client watching the object is sent the write's result: on the endpoint each delivery is an echo.
      if (r.stage !== 'endpoint') this.awaitingEcho.delete(slot);
    } else if (r.rv !== undefined) {
      this.earlyEchoes.set(slot, id);
      if (this.earlyEchoes.size > MAX_EARLY_ECHOES) this.earlyEchoes.delete(this.earlyEchoes.keys().next().value!);
    }
  }
}

/** Adds an id to a key's ids: a number while there is one, an array once there are more. */
function addId(m: Map<string, number | number[]>, key: string, id: number): void {
  const ids = m.get(key);
  if (ids === undefined) m.set(key, id);
  else if (typeof ids === 'number') m.set(key, [ids, id]);
  else ids.push(id);
}

function inner<V>(m: Map<string, Map<string, V>>, k: string): Map<string, V> {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = new Map()));
  return v;
}

function lastOf(m: Map<string, number>): number | undefined {
  let last: number | undefined;
  for (const v of m.values()) last = v;
  return last;
}
