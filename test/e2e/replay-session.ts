// A live informer session against the embedded server, recorded with the recorder `kwatch events
// --record` uses, with churn and faults (a dropped watch, a compaction that forces a 410 and a relist
// with a tombstone, a watch cut mid-line): the material the replay e2e tests judge replays against.
import { setTimeout as sleep } from 'node:timers/promises';
import { buildPipeline } from '../../src/informer/pipeline.js';
import { RECORDING_FORMAT_VERSION, RECORDING_KIND } from '../../src/informer/recording/recording-format.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { ListerWatcher, WatchEvent, WatchStream } from '../../src/informer/types.js';
import { connectionFromUrl } from '../../src/kube/http/connection.js';
import { HttpListerWatcher } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { RecordingFile } from '../../src/kube/recording/recording-file.js';
import { RecordingListerWatcher } from '../../src/kube/recording/recording-lister-watcher.js';
import type { SimServer } from '../../src/sim/server.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };

export interface RecordedSession {
  /** Every trace record of the live run, in order. */
  records: TraceRecord[];
  /** resourceVersion of the ADDED event of default/doomed (a pod deleted while the watch was down). */
  doomedRv: string;
  /** The compacted revision: the oldest resourceVersion the server can resume from afterwards. */
  compactedAt: number;
}

/** Polls `cond` every 20 ms; fails after `ms`. */
export async function waitFor(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function pod(name: string): { metadata: { name: string; namespace: string }; spec: unknown } {
  return { metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27.2' }] } };
}

export async function recordSession(sim: SimServer, path: string): Promise<RecordedSession> {
  const conn = connectionFromUrl(sim.url);
  const file = new RecordingFile(path, {
    kind: RECORDING_KIND,
    formatVersion: RECORDING_FORMAT_VERSION,
    kwatchVersion: 'test',
    server: sim.url,
    resources: [{ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }],
    masked: true,
  });
  const gate = new Gate(new RecordingListerWatcher(new HttpListerWatcher(conn, { ...PODS, namespaced: true }), file, 0));
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const pipeline = buildPipeline({ sources: [{ name: 'pods', listerWatcher: gate, expectedKind: 'Pod' }], tracer, fifo: 'real' });
  const stop = new AbortController();
  const running = pipeline.run(stop.signal);
  const count = (stage: string, op?: string) => records.filter((r) => r.stage === stage && (op === undefined || r.op === op)).length;
  const events = () => records.filter((r) => r.stage === 'watch' && r.type !== 'BOOKMARK' && r.type !== 'ERROR').length;
  const seen = (type: string, key: string) => records.find((r) => r.stage === 'watch' && r.type === type && r.key === key);
  const more = async (n: number, what: string) => {
    const target = events() + n;
    await waitFor(() => events() >= target, what);
  };
  try {
    await waitFor(() => pipeline.hasSynced(), 'the initial list');
    await more(4, 'churn');
    sim.api.create(PODS, pod('victim'));
    await waitFor(() => !!seen('ADDED', 'default/victim'), 'victim ADDED');
    sim.api.delete(PODS, 'default', 'victim');
    await waitFor(() => !!seen('DELETED', 'default/victim'), 'victim DELETED');
    sim.api.create(PODS, pod('doomed'));
    await waitFor(() => !!seen('ADDED', 'default/doomed'), 'doomed ADDED');
    const doomedRv = String(seen('ADDED', 'default/doomed')!.rv);
    await more(4, 'churn');

    // A dropped connection: the reflector re-watches from its last resourceVersion.
    sim.faults.dropWatches('end');
    await waitFor(() => count('reflector', 'watch-start') >= 2, 'the re-watch');
    await more(4, 'churn after the re-watch');

    // The watch goes down, changes happen, history is compacted: the re-watch gets 410, the relist a tombstone.
    sim.faults.dropWatches('end');
    sim.api.delete(PODS, 'default', 'doomed');
    sim.api.create(PODS, pod('newcomer'));
    sim.faults.compact();
    const compactedAt = sim.api.currentRevision();
    await waitFor(() => count('reflector', 'listed') >= 2, 'the relist after the 410', 20_000);
    await more(4, 'churn after the relist');

    // A watch event cut mid-line: the stream ends, the reflector re-watches.
    const starts = count('reflector', 'watch-start');
    sim.faults.cutNextWatchEvents(1);
    await waitFor(() => count('reflector', 'watch-start') > starts, 'the re-watch after the cut');
    await more(4, 'churn after the cut');

    // Stop taking events, let everything received reach every stage, then stop.
    gate.freeze();
    let last = -1;
    await waitFor(() => {
      const n = records.length;
      const quiet = n === last && pipeline.informers[0].fifoLength === 0;
      last = n;
      return quiet;
    }, 'the pipeline to drain');
    return { records: [...records], doomedRv, compactedAt };
  } finally {
    stop.abort();
    await running;
    file.close();
    await conn.close();
  }
}

/** Passes everything through until frozen; then pulls no further event (so nothing more is recorded). */
class Gate implements ListerWatcher {
  private frozen = false;
  private wake: (() => void)[] = [];

  constructor(private readonly inner: ListerWatcher) {}

  freeze(): void {
    this.frozen = true;
  }

  list: ListerWatcher['list'] = (options, signal) => this.inner.list(options, signal);

  async watch(options: Parameters<ListerWatcher['watch']>[0], signal?: AbortSignal): Promise<WatchStream> {
    const stream = await this.inner.watch(options, signal);
    let closed = false;
    return {
      close: () => {
        closed = true;
        for (const w of this.wake.splice(0)) w();
        stream.close();
      },
      [Symbol.asyncIterator]: () => this.pass(stream, () => closed),
    };
  }

  private async *pass(stream: WatchStream, closed: () => boolean): AsyncGenerator<WatchEvent> {
    const it = stream[Symbol.asyncIterator]();
    for (;;) {
      // Checked before pulling: every event the recorder pulled (and wrote) is delivered.
      if (this.frozen) {
        await new Promise<void>((resolve) => (closed() ? resolve() : this.wake.push(resolve)));
        return;
      }
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
}
