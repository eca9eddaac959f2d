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

/** One counter per process: a run may trace through nested tracers (a replay's inner pipeline), each with a linker. */
let nextId = 1;

export class CauseLinker {
  /** key → the id of the latest record of a stage for it, with the rv it carried. */
  private lastWatch = new Map<string, { rv: unknown; id: number }>();
  private pendingDeltas = new Map<string, number[]>();
  private lastPop = new Map<string, number>();
  private lastHandler = new Map<string, { rv: unknown; id: number }>();
  /** The newest handler call of any key: a map function turns one key's event into another key's request. */
  private newestHandler: number | undefined;
  /** `controller key` → the adds merged since the key was last handed out, then those it was handed out with. */
  private queued = new Map<string, number[]>();
  private handedOut = new Map<string, number[]>();
  /** `controller key` → the reconcile running for it (its start's id). */
  private running = new Map<string, number>();
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
    const id = nextId++;
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
    this.lastWatch.set(r.key, { rv: r.rv, id });
    this.markEcho(r, id);
  }

  private fifo(r: TraceRecord, id: number): void {
    const key = r.key;
    if (key === undefined) return;
    if (DELTA_OPS.has(r.op)) {
      let cause: number | undefined;
      if (r.op === 'Replaced') cause = this.lastListed.get(String(r.name ?? r.resource ?? '')) ?? lastOf(this.lastListed);
      else {
        const w = this.lastWatch.get(key);
        if (w && (r.rv === undefined || w.rv === r.rv)) cause = w.id;
      }
      if (cause !== undefined) r.cause = [cause];
      const pending = this.pendingDeltas.get(key);
      if (pending) pending.push(id);
      else this.pendingDeltas.set(key, [id]);
    } else if (r.op === 'pop') {
      const pending = this.pendingDeltas.get(key);
      if (pending) r.cause = pending;
      this.pendingDeltas.delete(key);
      this.lastPop.set(key, id);
    }
  }

  private handler(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const pop = this.lastPop.get(r.key);
    if (pop !== undefined) r.cause = [pop];
    this.lastHandler.set(r.key, { rv: r.rv, id });
    this.newestHandler = id;
  }

  private workqueue(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const slot = `${String(r.controller ?? r.queue ?? '')} ${r.key}`;
    if (QUEUE_ADD_OPS.has(r.op)) {
      const cause = this.queueAddCause(r);
      if (cause !== undefined) r.cause = [cause];
      const queued = this.queued.get(slot);
      if (queued) queued.push(id);
      else this.queued.set(slot, [id]);
    } else if (r.op === 'get') {
      this.handedOut.set(slot, this.queued.get(slot) ?? []);
      this.queued.delete(slot);
    }
  }

  /** What put a key into the queue: the write whose own result came back, the handler call, or the run that asked again. */
  private queueAddCause(r: TraceRecord): number | undefined {
    const reason = (r.reason ?? {}) as { key?: string; rv?: string; own?: boolean };
    const key = reason.key ?? r.key!;
    const rv = reason.rv ?? r.rv;
    // A write stored in kwatch's overlay comes back as the queue add itself, not as a watch event: that add is its echo.
    if (rv !== undefined) {
      const write = this.awaitingEcho.get(`${key}@${rv}`);
      if (write !== undefined) {
        this.awaitingEcho.delete(`${key}@${rv}`);
        r.echoOf = write;
        return write;
      }
    }
    const h = this.lastHandler.get(key);
    if (h && (rv === undefined || h.rv === rv)) return h.id;
    if (r.op === 'requeue' || r.op === 'add-after' || r.op === 'add-rate-limited') return this.running.get(`${String(r.controller ?? r.queue ?? '')} ${r.key}`);
    return this.newestHandler;
  }

  private reconcile(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const slot = `${String(r.controller ?? '')} ${r.key}`;
    if (r.op === 'start') {
      const merged = this.handedOut.get(slot);
      if (merged?.length) r.cause = merged;
      this.handedOut.delete(slot);
      this.running.set(slot, id);
    } else if (r.op === 'write') {
      const run = this.running.get(slot);
      if (run !== undefined) r.cause = [run];
      this.awaitEcho(r, id, String(r.target ?? r.key));
    } else if (r.op === 'success' || r.op === 'error' || r.op === 'requeue-after' || r.op === 'loop') {
      const run = this.running.get(slot);
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

function lastOf(m: Map<string, number>): number | undefined {
  let last: number | undefined;
  for (const v of m.values()) last = v;
  return last;
}
