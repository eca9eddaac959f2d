// `--inject` on the watches of an in-process informer (reconcile's module mode): the same WatchFaults the endpoint
// applies to the streams it serves a controller process, applied here between a live server and the reflector, so a
// module's informers meet the broken connection, the 410 and the lost DELETE of a real cluster.
import type { Clock } from '../informer/clock.js';
import { ConnectionError } from '../informer/errors.js';
import { ArrayQueue } from '../informer/array-queue.js';
import { metaNamespaceKey, type KubeObject, type ListerWatcher, type ListOptions, type ListPage, type Status, type WatchEvent, type WatchStream } from '../informer/types.js';
import { generatedStream } from '../informer/watch-streams.js';
import type { WatchFaults } from './watch-faults.js';

/** Told of each fault as it fires: the event it fired on, when it fired on one (a timed fault may fire between events). */
export type FaultFired = (fault: string, event?: WatchEvent) => void;

export class FaultyListerWatcher implements ListerWatcher {
  constructor(
    private readonly inner: ListerWatcher,
    private readonly faults: WatchFaults,
    private readonly clock: Clock,
    private readonly onFired: FaultFired,
  ) {}

  list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    return this.inner.list(options, signal);
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const inner = await this.inner.watch(options, signal);
    return faultyStream(inner, this.faults, this.clock, this.onFired);
  }
}

/** How a watch is cut short: the connection breaks (the reflector re-watches) or the server answers 410 (it relists). */
type Cut = { then: 'drop-connection' | 'expire'; fault: string };

/**
 * The inner stream's events with the faults applied. The inner stream is read eagerly into a queue, each event stamped
 * with its arrival, so that `delay` holds every event back by the same time (not one delay after another) and a timed
 * fault can cut the stream while the reader waits.
 */
function faultyStream(inner: WatchStream, faults: WatchFaults, clock: Clock, onFired: FaultFired): WatchStream {
  return generatedStream(async function* (signal) {
    const queue = new ArrayQueue<{ event: WatchEvent; at: number }>();
    let ended = false;
    let failure: unknown;
    let cut: Cut | undefined;
    let wake: (() => void) | undefined;
    const poke = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    // A cut watch is done with faults: later timed faults act on the watches open then, not on this one. Its reader
    // may close it (abort) without ever reading on, which leaves this generator suspended and its finally unrun, so
    // it leaves the faults' list as soon as it is cut or closed.
    let unregister = () => {};
    const cutBy = (c: Cut) => {
      if (cut) return;
      cut = c;
      unregister();
      onFired(c.fault);
      poke();
    };
    unregister = faults.register({
      expire: (fault) => cutBy({ then: 'expire', fault }),
      drop: (fault) => cutBy({ then: 'drop-connection', fault }),
    });
    // A fault that came due with no watch open fires on this one inside register(), before unregister was known.
    if (cut) unregister();
    const closed = () => { unregister(); poke(); };
    signal.addEventListener('abort', closed, { once: true });
    void (async () => {
      try {
        for await (const event of inner) {
          queue.push({ event, at: clock.now() });
          poke();
        }
      } catch (err) {
        failure = err;
      } finally {
        ended = true;
        poke();
      }
    })();
    try {
      for (;;) {
        if (signal.aborted) return;
        if (cut) return yield* cutShort(cut);
        const next = queue.shift();
        if (!next) {
          if (ended) {
            if (failure !== undefined) throw failure;
            return;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const hold = next.at + faults.delayMs() - clock.now();
        if (hold > 0) await clock.sleep(hold, signal);
        const { event } = next;
        if (event.type === 'ERROR') {
          yield event;
          continue;
        }
        const key = event.type === 'BOOKMARK' ? undefined : metaNamespaceKey(event.object);
        const f = faults.forEvent(event.type, key, event.object.metadata?.resourceVersion);
        for (const fault of f.fired) onFired(fault, event);
        if (!f.hide) yield event;
        if (f.duplicate) yield event;
        if (f.then) {
          unregister();
          return yield* cutShort({ then: f.then, fault: f.fired.join(',') });
        }
      }
    } finally {
      unregister();
      signal.removeEventListener('abort', closed);
      inner.close();
    }
  });
}

async function* cutShort(cut: Cut): AsyncGenerator<WatchEvent> {
  if (cut.then === 'drop-connection') throw new ConnectionError(`connection reset by kwatch --inject ${cut.fault}`, 'ECONNRESET');
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Expired', message: `too old resource version (injected by kwatch: ${cut.fault})` };
  yield { type: 'ERROR', object: status as unknown as KubeObject };
}
