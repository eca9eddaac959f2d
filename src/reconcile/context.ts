// The ReconcileContext a run reads and writes through: reads from the shared informers' caches (deep
// copies, as controller-runtime's cache-backed client hands out), writes through the WriteChannel.
import { format } from 'node:util';
import type { Clock } from '../informer/clock.js';
import type { Tracer } from '../informer/trace.js';
import { metaNamespaceKey, type KubeObject } from '../informer/types.js';
import { reportMaskedReads } from './masked-reads.js';
import { getCached, listCached } from './cache-reader.js';
import { objectKey } from './catalog.js';
import type { SharedInformerFactory } from './informer-factory.js';
import type { ListQuery, ObjectRef, PatchOptions, ReconcileContext } from './types.js';
import type { RunRef, WriteChannel } from './writes.js';

export interface ContextDeps {
  factory: SharedInformerFactory;
  writes: WriteChannel;
  tracer: Tracer;
  clock: Clock;
  signal: AbortSignal;
  /** Replaying a masked recording: told when the reconciler reads a value the recording masked. */
  onMaskedRead?: (resource: string, key: string, path: string) => void;
  /** --read-your-writes: a read of a key this controller wrote waits until the cache holds that write. */
  readYourWrites?: boolean;
}

/** --read-your-writes polls the cache this often, and gives up (reading what it has, a stale-read) after this long. */
const READ_YOUR_WRITES_POLL_MS = 10;
export const READ_YOUR_WRITES_TIMEOUT_MS = 10_000;

export function createContext(run: RunRef, deps: ContextDeps): ReconcileContext {
  const informer = async (resource: string) => {
    const entry = await deps.factory.informerFor(resource);
    if (!entry.informer.hasSynced()) await entry.informer.whenSynced(deps.signal);
    return entry;
  };
  const guard = (resource: string, obj: KubeObject) => reportMaskedReads(obj, (path) => deps.onMaskedRead!(resource, metaNamespaceKey(obj), path));
  /** controllerutil's Add/RemoveFinalizer, written at once: no write when the list already says so. */
  const setFinalizer = async (obj: KubeObject, name: string, present: boolean): Promise<KubeObject> => {
    if (typeof name !== 'string' || name === '') throw new TypeError(`ctx.${present ? 'add' : 'remove'}Finalizer(obj, name): name must be a finalizer such as 'example.com/cleanup'`);
    const current = obj?.metadata?.finalizers ?? [];
    if (current.includes(name) === present) return obj;
    const finalizers = present ? [...current, name] : current.filter((f) => f !== name);
    return (await write('patch', obj, { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } })) ?? obj;
  };
  const write = (verb: Parameters<WriteChannel['write']>[1]['verb'], obj: KubeObject, patch?: unknown, options?: PatchOptions) => deps.writes.write(run, { verb, obj, patch, options });
  const own = deps.writes.ownWrites;
  const emit = (op: string, detail: Record<string, unknown>) => {
    if (deps.tracer.enabled) deps.tracer.emit({ time: deps.clock.now(), stage: 'reconcile', op, key: run.key, controller: run.controller, ...detail });
  };
  /**
   * Before a read of `key`: with --read-your-writes, wait (bounded) until the cache holds this controller's last
   * write of it, as a `read-your-writes` record with the wait; a read still older than that write is `stale-read`.
   */
  const checkFresh = async (resource: string, indexer: { getByKey(k: string): KubeObject | undefined }, key: string): Promise<void> => {
    let stale = own.staleBy(run.controller, resource, key, indexer.getByKey(key));
    if (stale === undefined) return;
    if (deps.readYourWrites) {
      const started = deps.clock.now();
      while (stale !== undefined && deps.clock.now() - started < READ_YOUR_WRITES_TIMEOUT_MS) {
        await deps.clock.sleep(READ_YOUR_WRITES_POLL_MS, deps.signal);
        stale = own.staleBy(run.controller, resource, key, indexer.getByKey(key));
      }
      emit('read-your-writes', { resource, readKey: key, writtenRv: own.lastRv(run.controller, resource, key), waitedMs: deps.clock.now() - started, caughtUp: stale === undefined });
      if (stale === undefined) return;
    }
    own.staleReads.push({ controller: run.controller, key: run.key, resource, readKey: key, ...stale });
    emit('stale-read', { resource, readKey: key, cachedRv: stale.cachedRv, writtenRv: stale.writtenRv, message: `read ${key} at resourceVersion ${stale.cachedRv}, older than this controller's own write of it (${stale.writtenRv})` });
  };
  return {
    controller: run.controller,
    signal: deps.signal,
    async get<T extends KubeObject = KubeObject>(resource: string, ref: ObjectRef): Promise<T | undefined> {
      if (!ref || typeof ref.name !== 'string') throw new TypeError(`ctx.get(${JSON.stringify(resource)}, ref): ref needs a name`);
      const { info, informer: inf } = await informer(resource);
      await checkFresh(info.name, inf.getIndexer(), objectKey(info.namespaced ? ref.namespace : undefined, ref.name));
      const obj = getCached(info, inf.getIndexer(), ref);
      return (obj && deps.onMaskedRead ? guard(info.name, obj) : obj) as T | undefined;
    },
    async list<T extends KubeObject = KubeObject>(resource: string, query: ListQuery = {}): Promise<T[]> {
      const { info, informer: inf } = await informer(resource);
      let items = listCached(info, inf.getIndexer(), query);
      const written = items.map((o) => metaNamespaceKey(o)).filter((k) => own.lastRv(run.controller, info.name, k) !== undefined);
      for (const key of written) await checkFresh(info.name, inf.getIndexer(), key);
      // Read again after --read-your-writes waited: the list holds the writes it waited for.
      if (deps.readYourWrites && written.length > 0) items = listCached(info, inf.getIndexer(), query);
      return (deps.onMaskedRead ? items.map((o) => guard(info.name, o)) : items) as T[];
    },
    create: (obj) => write('create', obj),
    update: (obj) => write('update', obj),
    patch: (obj, patch, options) => write('patch', obj, patch, options),
    updateStatus: (obj) => write('update-status', obj),
    patchStatus: (obj, patch, options) => write('patch-status', obj, patch, options),
    async delete(obj) {
      await write('delete', obj);
    },
    addFinalizer: (obj, name) => setFinalizer(obj, name, true),
    removeFinalizer: (obj, name) => setFinalizer(obj, name, false),
    async recordEvent(obj, type, reason, message) {
      await deps.writes.write(run, { verb: 'event', obj, event: { type, reason, message } });
    },
    log(...args: unknown[]) {
      if (deps.tracer.enabled) deps.tracer.emit({ time: deps.clock.now(), stage: 'reconcile', op: 'log', key: run.key, controller: run.controller, message: format(...args) });
    },
  };
}
