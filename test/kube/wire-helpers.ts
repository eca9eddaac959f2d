// What cbor-wire.test.ts and protobuf-wire.test.ts share: a sim with two configmaps, kwatch's lister-watcher on it in a
// chosen wire format, the http trace records (which say what Content-Type each answer came in), and a watch's first
// event after a create.
import { afterAll } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { HttpListerWatcher, type ListWatchTarget, type WireFormat } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/server.js';

export const CONFIGMAPS: ListWatchTarget = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, namespace: 'default' };
const CM = { group: '', version: 'v1', resource: 'configmaps' };

export interface WireSetup {
  sim: SimServer;
  records: TraceRecord[];
  /** A lister-watcher asking in `wire` (configmaps in default unless told). */
  lw: (wire: WireFormat, target?: ListWatchTarget) => HttpListerWatcher;
}

/** A per-file factory of sims (each with configmaps `one` and `two`), all closed after the file's tests. */
export function wireSims(): (options: SimServerOptions) => Promise<WireSetup> {
  const sims: SimServer[] = [];
  const conns: Connection[] = [];
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close()));
    await Promise.all(sims.map((s) => s.close()));
  });
  return async (options) => {
    const sim = await startSimServer(options);
    sims.push(sim);
    for (const name of ['one', 'two']) sim.api.create(CM, { metadata: { name, namespace: 'default' }, data: { k: name } });
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((e) => records.push(e));
    const conn = connectionFromUrl(sim.url, { tracer });
    conns.push(conn);
    return { sim, records, lw: (wire, target = CONFIGMAPS) => new HttpListerWatcher(conn, target, { wire }) };
  };
}

/** The Content-Type the last http response record carries (none for JSON answers to a list). */
export function lastContentType(records: TraceRecord[]): string | undefined {
  return (records.filter((r) => r.stage === 'http' && r.op === 'response').at(-1) as { contentType?: string } | undefined)?.contentType;
}

/** Creates configmap `three` and returns the first event the watch then reads (the watch is closed after). */
export async function firstEventAfterCreate(sim: SimServer, lw: HttpListerWatcher, resourceVersion: string | undefined, onOpen: () => void) {
  const stream = await lw.watch({ resourceVersion, allowWatchBookmarks: true });
  onOpen();
  sim.api.create(CM, { metadata: { name: 'three', namespace: 'default' }, data: { k: 'three' } });
  try {
    for await (const e of stream) return e;
    throw new Error('the watch ended before its first event');
  } finally {
    stream.close();
  }
}
