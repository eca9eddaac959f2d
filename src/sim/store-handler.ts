// The sim's REST handlers over a store someone else fills: what kwatch's fork of a cluster (src/endpoint/fork.ts)
// serves to a controller. The same handlers as `kwatch sim`, without its server, controllers, workload or control token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Discovery } from './discovery.js';
import { FaultController } from './faults.js';
import { createRequestHandler } from './http-handler.js';
import { RequestLog } from './request-log.js';
import type { ServerContext } from './server-context.js';
import type { SimStore } from './store.js';

export interface StoreHandler {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every open watch (the endpoint is shutting down). */
  close(): void;
}

export function createStoreHandler(store: SimStore, opts: { bookmarkIntervalMs?: number } = {}): StoreHandler {
  const ctx: ServerContext = { store, faults: new FaultController(), bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000, tooLargeWaitMs: 3000, watches: new Set() };
  const handle = createRequestHandler(ctx, new Discovery(store.registry), new RequestLog(200));
  return {
    handle,
    close: () => { for (const w of [...ctx.watches]) w.close('end'); },
  };
}
