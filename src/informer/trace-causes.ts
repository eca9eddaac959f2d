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
  /**
   * key → what the key's last event left at each stage. One record per stage of every event reaches the linker, and
   * the records of one event come one after another: one object per key, and the last one kept at hand, so that most
   * records cost no lookup at all (a Map per stage cost a lookup or two per record; see bench/sync.js, -o ndjson).
   */
  private keys = new Map<string, KeyLinks>();
  private lastKey: string | undefined;
  private lastLinks: KeyLinks | undefined;
  /** The newest handler call of any key: a map function turns one key's event into another key's request. */
  private newestHandler: number | undefined;
  /** controller → its queue's merged adds and running reconciles; the last one kept at hand, as for keys. */
  private controllers = new Map<string, ControllerLinks>();
  private lastController: string | undefined;
  private lastControllerLinks: ControllerLinks | undefined;
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
        const pop = r.key !== undefined ? this.linksOf(r.key).pop : undefined;
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
    const links = this.linksOf(r.key);
    links.watch = id;
    links.watchRv = r.rv;
    if (this.writesSeen) this.markEcho(r, id);
  }

  private fifo(r: TraceRecord, id: number): void {
    const key = r.key;
    if (key === undefined) return;
    if (DELTA_OPS.has(r.op)) {
      const links = this.linksOf(key);
      let cause: number | undefined;
      if (r.op === 'Replaced') cause = this.lastListed.get(String(r.name ?? r.resource ?? '')) ?? lastOf(this.lastListed);
      else {
        if (links.watch !== undefined && (r.rv === undefined || links.watchRv === r.rv)) cause = links.watch;
      }
      if (cause !== undefined) r.cause = [cause];
      links.deltas = withId(links.deltas, id);
    } else if (r.op === 'pop') {
      const links = this.linksOf(key);
      const pending = links.deltas;
      if (pending !== undefined) r.cause = typeof pending === 'number' ? [pending] : pending;
      links.deltas = undefined;
      links.pop = id;
    }
  }

  private handler(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const links = this.linksOf(r.key);
    if (links.pop !== undefined) r.cause = [links.pop];
    links.handler = id;
    links.handlerRv = r.rv;
    this.newestHandler = id;
  }

  private workqueue(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const controller = this.controllerOf(String(r.controller ?? r.queue ?? ''));
    if (QUEUE_ADD_OPS.has(r.op)) {
      const cause = this.queueAddCause(r);
      if (cause !== undefined) r.cause = [cause];
      controller.queued.set(r.key, withId(controller.queued.get(r.key), id));
    } else if (r.op === 'get') {
      const ids = controller.queued.get(r.key);
      if (ids !== undefined) {
        controller.handedOut.set(r.key, ids);
        controller.queued.delete(r.key);
      } else controller.handedOut.delete(r.key);
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
    const links = this.linksOf(key);
    if (links.handler !== undefined && (rv === undefined || links.handlerRv === rv)) return links.handler;
    if (r.op === 'requeue' || r.op === 'add-after' || r.op === 'add-rate-limited') return this.controllers.get(String(r.controller ?? r.queue ?? ''))?.running.get(r.key!);
    return this.newestHandler;
  }

  private reconcile(r: TraceRecord, id: number): void {
    if (r.key === undefined) return;
    const controller = this.controllerOf(String(r.controller ?? ''));
    if (r.op === 'start') {
      const merged = controller.handedOut.get(r.key);
      if (merged !== undefined) {
        r.cause = typeof merged === 'number' ? [merged] : merged;
        controller.handedOut.delete(r.key);
      } else if (r.from !== undefined) {
        // A reconcile a controller process logged (--exec, reconcile-spans.ts): the newest change it was sent of the key.
        const event = this.linksOf(r.key).endpointEvent;
        if (event !== undefined) r.cause = [event];
      }
      controller.running.set(r.key, id);
    } else if (r.op === 'write') {
      const run = controller.running.get(r.key);
      if (run !== undefined) r.cause = [run];
      this.awaitEcho(r, id, String(r.target ?? r.key));
    } else if (r.op === 'success' || r.op === 'error' || r.op === 'requeue-after' || r.op === 'requeue' || r.op === 'end' || r.op === 'loop') {
      const run = controller.running.get(r.key);
      if (run !== undefined) r.cause = [run];
    }
  }

  private endpoint(r: TraceRecord, id: number): void {
    if (r.op === 'watch' && r.key !== undefined && typeof r.event === 'string' && CHANGE_EVENTS.has(r.event)) {
      const desc = `${String(r.client)} ${r.event} ${String(r.resource)} ${r.key}${r.rv !== undefined ? `@${String(r.rv)}` : ''}`;
      this.endpointEvents.set(desc, id);
      this.linksOf(r.key).endpointEvent = id;
      if (this.endpointEvents.size > MAX_ENDPOINT_EVENTS) this.endpointEvents.delete(this.endpointEvents.keys().next().value!);
      this.markEcho(r, id);
    } else if (r.op === 'write' && r.key !== undefined && typeof r.reconcile === 'number') {
      // Made inside a reconcile the controller logged (reconcile-spans.ts): that reconcile is its cause.
      r.cause = [r.reconcile];
      this.awaitEcho(r, id, r.key);
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

  private linksOf(key: string): KeyLinks {
    if (key === this.lastKey) return this.lastLinks!;
    let links = this.keys.get(key);
    if (links === undefined) this.keys.set(key, (links = { watch: undefined, watchRv: undefined, deltas: undefined, pop: undefined, handler: undefined, handlerRv: undefined, endpointEvent: undefined }));
    this.lastKey = key;
    this.lastLinks = links;
    return links;
  }

  private controllerOf(name: string): ControllerLinks {
    if (name === this.lastController) return this.lastControllerLinks!;
    let links = this.controllers.get(name);
    if (links === undefined) this.controllers.set(name, (links = { queued: new Map(), handedOut: new Map(), running: new Map() }));
    this.lastController = name;
    this.lastControllerLinks = links;
    return links;
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

/**
 * What the linker keeps of one key: the id of the latest record of each stage it links from, and the rv of those a
 * later record must match. Ids and rvs rather than the records: a record kept here outlived the young generation
 * (one per key, for as long as the key's next event takes) and was copied by every scavenge meanwhile.
 */
interface KeyLinks {
  /** The latest change event (ADDED, MODIFIED, DELETED). */
  watch: number | undefined;
  watchRv: string | undefined;
  /** The fifo deltas queued since the key was last popped. */
  deltas: Ids | undefined;
  /** The id of the key's last pop. */
  pop: number | undefined;
  /** The latest handler call. */
  handler: number | undefined;
  handlerRv: string | undefined;
  /** The latest change event the endpoint delivered to a client (--exec, proxy). */
  endpointEvent: number | undefined;
}

/** What the linker keeps of one controller, by key. */
interface ControllerLinks {
  /** The adds merged since the key was last handed out. */
  queued: Map<string, Ids>;
  /** The adds the key was last handed out with, until its reconcile starts. */
  handedOut: Map<string, Ids>;
  /** The reconcile running for the key (its start's id). */
  running: Map<string, number>;
}

/** Ids one at a time: a number while there is one, an array once there are more (no allocation for the usual one). */
type Ids = number | number[];

/** Adds an id to ids. */
function withId(ids: Ids | undefined, id: number): Ids {
  if (ids === undefined) return id;
  if (typeof ids === 'number') return [ids, id];
  ids.push(id);
  return ids;
}

function lastOf(m: Map<string, number>): number | undefined {
  let last: number | undefined;
  for (const v of m.values()) last = v;
  return last;
}
