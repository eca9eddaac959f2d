// A ListerWatcher that plays a recording back to a real Reflector: the recorded list pages and watch
// connections in order, each at its recorded time on the given Clock, with optional injected faults.
import type { Clock } from '../clock.js';
import { ConnectionError, StatusError, StreamCutError, WatchDecodeError } from '../errors.js';
import type { RecordingEntry } from './recording-format.js';
import { applyList, ObjectState, type RecordedList, type RecordedWatch, type Timeline, type TimelinePosition } from './recording-timeline.js';
import { ReplayFaults } from './replay-faults.js';
import { generatedStream, never } from '../watch-streams.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../reflector-state.js';
import { metaNamespaceKey, type KubeObject, type ListOptions, type ListPage, type ListerWatcher, type Status, type WatchEvent, type WatchStream } from '../types.js';

export interface RecordedListerWatcherOptions {
  /** One resource's requests (recording-timeline.ts), read as the replay goes. */
  timeline: Timeline;
  clock: Clock;
  /** Epoch milliseconds the entries' `t` offsets count from (the recording's start time). */
  startEpoch: number;
  faults?: ReplayFaults;
  /**
   * Start in the middle (`--from-rv`): the first list is answered with `seed` (the state the recording
   * shows at `resourceVersion`), then the recording continues at `position`.
   */
  start?: { position: TimelinePosition; seed: ObjectState; resourceVersion: string };
  /** Told of each event an injected fault changed, where it happened (for a trace line there). */
  onFault?: (fault: InjectedFault) => void;
}

/** An injected fault at work: which fault, on which event. */
export interface InjectedFault {
  /** As given to --inject, e.g. `hide-delete:default/web-0`, `expire@105`. */
  fault: string;
  /** The event it acted on: its type, key and resourceVersion. */
  event: string;
  key?: string;
  rv?: string;
}

/** Counters for the replay summary. */
export interface RecordedStats {
  /** Recorded list pages and watch connections served as recorded. */
  recorded: number;
  /** Lists answered from the recording's state because the replayed reflector relisted where the recording did not. */
  synthesizedLists: number;
  /** Watches answered with a 410 because the recording relisted where the replayed reflector wanted to watch. */
  synthesizedExpiries: number;
}

/** How late, on the recording's clock, a replayed request or event may come before the replay has left the recorded clock. */
export const LATE_MS = 500;

/** The first point where the replay came later than the recording: what, when it was recorded, when it was replayed. */
export interface ClockDivergence {
  what: 'list' | 'watch' | 'event' | 'watch end';
  recordedAt: number;
  replayedAt: number;
}

/**
 * Serves each request the Reflector makes with the next recorded one of the same kind: a LIST gets the
 * next recorded list (continue tokens pick its later pages), a WATCH the next recorded connection,
 * whose events arrive at their recorded times and which ends as it ended. When the replayed reflector
 * departs from the recording — because a fault was injected, or replay started mid-way — the answers
 * stay truthful: a relist the recording never made is answered from the state the recording shows at
 * that point; a watch where the recording relisted is answered with 410 Expired; a watch after a
 * broken connection continues the broken connection's remaining events. Requests past the end of the
 * recording never complete; `exhausted` then turns true and the driver stops the replay.
 */
export class RecordedListerWatcher implements ListerWatcher {
  readonly stats: RecordedStats = { recorded: 0, synthesizedLists: 0, synthesizedExpiries: 0 };
  private readonly timeline: Timeline;
  private readonly clock: Clock;
  private readonly startEpoch: number;
  private readonly faults: ReplayFaults;
  /** What the server held, as far as the recording shows, at the point served so far (hidden deletes included). */
  private readonly state: ObjectState;
  /** Index of the next op not yet served. */
  private next = 0;
  /** A watch connection cut short by an injected fault (or --from-rv): the next watch continues it. */
  private resume?: TimelinePosition;
  private currentList?: RecordedList;
  private seed?: ObjectState;
  /** An injected expiry owes the reflector a relist even past the end of the recording. */
  private owedRelist = false;
  private idleAtEnd = false;
  /** Set the first time something is served later than recorded (the replayed reflector waited longer than the live one). */
  late?: ClockDivergence;
  private readonly onFault?: (fault: InjectedFault) => void;

  constructor(o: RecordedListerWatcherOptions) {
    this.onFault = o.onFault;
    this.timeline = o.timeline;
    this.clock = o.clock;
    this.startEpoch = o.startEpoch;
    this.faults = o.faults ?? new ReplayFaults();
    this.state = new ObjectState();
    if (o.start) {
      const { position } = o.start;
      this.state = ObjectState.copy(o.start.seed);
      this.seed = ObjectState.copy(o.start.seed);
      this.seed.resourceVersion = o.start.resourceVersion;
      if (this.timeline.op(position.op)?.kind === 'watch') {
        this.resume = position;
        this.next = position.op + 1;
      } else this.next = position.op;
    }
  }

  /** True once the reflector asked for something the recording does not contain (the replay is over). */
  get exhausted(): boolean {
    return this.idleAtEnd && !this.owedRelist;
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    if (this.seed) {
      const seed = this.seed;
      this.seed = undefined;
      return statePage(seed);
    }
    if (options.continue) return this.continueList(options.continue, signal);
    const op = this.resume ? undefined : this.timeline.op(this.next);
    if (op?.kind === 'list') {
      this.next++;
      this.currentList = op;
      this.releasePassed();
      if (op.pages.length === 0) {
        await this.waitUntil(op.error!.t, signal, 'list');
        throw errorFromEntry(op.error!);
      }
      return this.servePage(op, 0, signal);
    }
    if (op?.kind === 'watch' && op.sendInitialEvents) {
      const listed = await this.initialEventsAsList(op, signal);
      if (listed) return listed;
    }
    if (this.resume || op || this.owedRelist) {
      this.owedRelist = false;
      this.stats.synthesizedLists++;
      return statePage(this.state);
    }
    return this.beyondEnd(signal);
  }

  async watch(_options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    if (this.resume) {
      const { op, event } = this.resume;
      this.resume = undefined;
      return this.stream(op, event);
    }
    const op = this.timeline.op(this.next);
    if (!op) {
      this.idleAtEnd = true;
      return idleStream();
    }
    if (op.kind === 'list' && _options.sendInitialEvents) {
      // The recorded client gave up on its watch-list here and listed, and the replayed one did not (a recording that
      // predates the header's watchList settings, whose --fallback the replay cannot know): a 410 would only start
      // another watch-list, each answered the same way, for ever. An error that is neither 410 nor retriable makes the
      // reflector fall back to LIST+WATCH, as client-go's does after a failed watch-list (reflector.go: "falling back
      // to the standard LIST/WATCH semantics"), and meet the recorded list.
      throw new Error('[kwatch replay: the recording fell back from watch-list to LIST+WATCH here]');
    }
    if (op.kind === 'list') {
      // The recording relisted here (its watch could not go on); a real server would answer 410.
      this.stats.synthesizedExpiries++;
      const listRv = op.pages.at(-1)?.page.metadata.resourceVersion ?? '';
      return eventsStream([expiredEvent(`too old resource version: ${_options.resourceVersion ?? ''} (${listRv}) [kwatch replay: the recording relisted here]`)]);
    }
    this.next++;
    this.releasePassed();
    await this.waitUntil(op.t, signal, 'watch');
    if (op.kind === 'watch-error') throw errorFromEntry(op.error);
    this.stats.recorded++;
    return this.stream(this.next - 1, 0);
  }

  /**
   * A LIST+WATCH client (reconcile --from-recording, the recording cluster) meets a watch-list the recording made: its
   * initial events, up to the initial-events-end bookmark, are the list it is answered with, at the bookmark's
   * resourceVersion and time; its next watch continues the same connection after the bookmark. Undefined when the
   * recorded stream never ended its initial events.
   */
  private async initialEventsAsList(op: RecordedWatch, signal?: AbortSignal): Promise<ListPage | undefined> {
    let end = -1;
    for (let i = op.firstEvent, entry = this.timeline.event(op, i); entry; entry = this.timeline.event(op, ++i)) {
      const ev = entry.event;
      if (ev.type === 'BOOKMARK' && ev.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
        end = i;
        break;
      }
      if (ev.type === 'ERROR') return undefined;
    }
    if (end < 0) return undefined;
    this.next++;
    this.releasePassed();
    // The list is the bytes those events were on the wire (the live run counted them): a page without them would
    // leave the replay's summary short of everything the initial events brought.
    let bytes: number | undefined;
    for (let i = op.firstEvent; i <= end; i++) {
      const ev = this.timeline.event(op, i)!.event;
      this.state.apply(ev);
      if (ev.bytes !== undefined) bytes = (bytes ?? 0) + ev.bytes;
    }
    await this.waitUntil(this.timeline.event(op, end)!.t, signal, 'list');
    this.resume = { op: this.next - 1, event: end + 1 };
    this.stats.recorded++;
    const page = statePage(this.state);
    return bytes === undefined ? page : { ...page, bytes };
  }

  private async continueList(token: string, signal?: AbortSignal): Promise<ListPage> {
    const op = this.currentList;
    if (op?.error?.options.continue === token) {
      await this.waitUntil(op.error.t, signal, 'list');
      throw errorFromEntry(op.error);
    }
    const index = op ? op.pages.findIndex((p) => p.options.continue === token) : -1;
    if (!op || index < 0) return this.beyondEnd(signal);
    return this.servePage(op, index, signal);
  }

  private async servePage(op: RecordedList, index: number, signal?: AbortSignal): Promise<ListPage> {
    const entry = op.pages[index];
    await this.waitUntil(entry.t, signal, 'list');
    this.stats.recorded++;
    if (index === op.pages.length - 1) {
      applyList(this.state, op);
      // Nothing continues a list after its last page: holding it would keep a second copy of the listed state
      // (its objects, long replaced in the cache by newer ones) for the rest of the replay.
      if (!op.error && this.currentList === op) this.currentList = undefined;
    }
    return entry.bytes === undefined ? entry.page : { ...entry.page, bytes: entry.bytes };
  }

  /** One recorded connection from event `from` on, with the faults applied, ending as recorded. */
  private stream(opIndex: number, from: number): WatchStream {
    return generatedStream((signal) => this.events(opIndex, from, signal));
  }

  private async *events(opIndex: number, from: number, signal: AbortSignal): AsyncGenerator<WatchEvent> {
    const op = this.timeline.op(opIndex) as RecordedWatch;
    for (let i = from, entry = this.timeline.event(op, i); entry; entry = this.timeline.event(op, ++i)) {
      this.timeline.releaseEvents(op, i);
      await this.waitUntil(entry.t, signal, 'event');
      const ev = entry.event;
      this.state.apply(ev);
      if (ev.type === 'ERROR') {
        yield ev;
        continue;
      }
      const rv = ev.object.metadata?.resourceVersion;
      const key = ev.type === 'BOOKMARK' ? '' : metaNamespaceKey(ev.object);
      const f = this.faults.forEvent(ev.type, key, rv);
      const told = (fault: string) => this.onFault?.({ fault, event: ev.type, key: key || undefined, rv });
      if (f.hide) told(`hide-delete:${key}`);
      else yield ev;
      if (f.duplicate) {
        told(`duplicate@${rv}`);
        yield ev;
      }
      if (f.then) told(`${f.then}@${rv}`);
      if (f.then === 'drop-connection') {
        this.resume = { op: opIndex, event: i + 1 };
        throw new ConnectionError(`connection reset after resourceVersion ${rv} [kwatch replay --inject drop-connection@${rv}]`, 'ECONNRESET');
      }
      if (f.then === 'expire') {
        this.resume = { op: opIndex, event: i + 1 };
        this.owedRelist = true;
        yield expiredEvent(`too old resource version: ${rv} (${rv}) [kwatch replay --inject expire@${rv}]`);
        return;
      }
    }
    const end = op.end;
    if (end?.reason === 'eof' || end?.reason === 'error') {
      await this.waitUntil(end.t, signal, 'watch end');
      if (end.reason === 'error') throw streamError(end.error ?? 'the watch stream failed');
      return;
    }
    // The client closed it, or the recording stopped: it stays open until the recording moves on.
    const later = this.timeline.op(this.next);
    if (later) return void (await this.waitUntil(later.t, signal, 'watch end'));
    // The run stopped here (--for, Ctrl-C): the live reflector watched until then, and the replay ends there too, so
    // its summary spans what the live run's did (elapsed=1.1s against 3.9s when it stopped at the last request instead).
    if (end?.reason === 'aborted') await this.waitUntil(end.t, signal, 'watch end');
    this.idleAtEnd = true;
    await never(signal);
  }

  /** Ops before the current one are never served again, except a connection to resume or a list still paging. */
  private releasePassed(): void {
    this.timeline.releaseOps(Math.min(this.next - 1, this.resume?.op ?? Infinity));
  }

  private waitUntil(t: number, signal: AbortSignal | undefined, what: ClockDivergence['what']): Promise<void> {
    const ms = this.startEpoch + t - this.clock.now();
    if (ms < -LATE_MS) this.late ??= { what, recordedAt: this.startEpoch + t, replayedAt: this.clock.now() };
    return ms > 0 ? this.clock.sleep(ms, signal) : Promise.resolve();
  }

  /** A request past the end of the recording: never answered (rejected when aborted). */
  private beyondEnd(signal?: AbortSignal): Promise<never> {
    this.idleAtEnd = true;
    return never(signal);
  }
}

function statePage(state: ObjectState): ListPage {
  return { metadata: { resourceVersion: state.resourceVersion }, items: state.items() };
}

function expiredEvent(message: string): WatchEvent {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Expired', code: 410 };
  return { type: 'ERROR', object: status as unknown as KubeObject };
}

/** The error a recorded failed request threw (a Status when the server sent one). */
function errorFromEntry(e: Extract<RecordingEntry, { rec: 'error' }>): Error {
  // The Retry-After the live reflector honoured (the header is kept as details.retryAfterSeconds): without it the
  // replayed reflector would back off instead, and leave the recorded path and clock.
  if (e.status) return new StatusError(e.status, e.status.details?.retryAfterSeconds, e.bytes);
  return new ConnectionError(e.message, /\b(E[A-Z]{3,})\b/.exec(e.message)?.[1]);
}

/** The error a recorded watch ended with, rebuilt from its message so the reflector reacts as it did. */
function streamError(message: string): Error {
  const cut = /ended in the middle of an event \((\d+) bytes/.exec(message);
  if (cut) return new StreamCutError('x'.repeat(Number(cut[1])));
  if (/unable to decode|not a valid watch event/i.test(message)) return new WatchDecodeError(message, '');
  return new ConnectionError(message, /\b(E[A-Z]{3,})\b/.exec(message)?.[1]);
}

function eventsStream(events: WatchEvent[]): WatchStream {
  return generatedStream(async function* () {
    yield* events;
  });
}

/** A stream that stays open, delivering nothing, until closed. */
function idleStream(): WatchStream {
  const ac = new AbortController();
  return {
    close: () => ac.abort(),
    [Symbol.asyncIterator]: () => ({
      next: () => never(ac.signal).catch((): IteratorResult<WatchEvent> => ({ done: true, value: undefined })),
      return: async (): Promise<IteratorResult<WatchEvent>> => (ac.abort(), { done: true, value: undefined }),
    }),
  };
}
