// The sim's REST handlers over a store someone else fills: what kwatch's fork of a cluster (src/endpoint/fork.ts)
// serves to a controller. The same handlers as `kwatch sim`, without its server, controllers, workload or control token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Discovery } from './discovery.js';
import { FaultController } from './faults.js';
import { createRequestHandler } from './http-handler.js';
import { RequestLog } from './request-log.js';
import { deleteObject } from './controllers/graceful-delete.js';
import { isNamespaceType } from './controllers/namespace-controller.js';
import type { ServerContext } from './server-context.js';
import type { SimStore } from './store.js';

export interface StoreHandler {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every open watch (the endpoint is shutting down). */
  close(): void;
}

export function createStoreHandler(store: SimStore, opts: { bookmarkIntervalMs?: number } = {}): StoreHandler {
  const ctx: ServerContext = { store, faults: new FaultController(), bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000, tooLargeWaitMs: 3000, watches: new Set() };
  // kube-apiserver's DELETE as the generic registry does it — finalizers hold an object (deletionTimestamp set) until they
  // are gone, propagationPolicy adds the GC finalizers — with no controller behind it: pods go at once (no kubelet to
  // finish a graceful deletion), and a namespace is removed with its contents (no namespace controller).
  ctx.deletes = {
    delete: (type, namespace, name, req) => {
      if (isNamespaceType(type)) {
        const gone = store.deleteStored(type, undefined, name, { dryRun: req.dryRun, preconditions: req.preconditions });
        return { body: gone.json, code: 200, deleted: !req.dryRun };
      }
      return deleteObject(store, type, namespace, name, type.group === '' && type.resource === 'pods' ? { ...req, gracePeriodSeconds: 0 } : req);
    },
    errors: 0,
    lastError: undefined,
    budgets: () => ({}),
  };
  const handle = createRequestHandler(ctx, new Discovery(store.registry), new RequestLog(200));
  return {
    handle,
    close: () => { for (const w of [...ctx.watches]) w.close('end'); },
  };
}
