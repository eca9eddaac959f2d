// GET of one object when the Accept asks for a Table (kubectl get <kind> <name>); plain GETs stay with write-handlers' handleGet.
import type { ServerResponse } from 'node:http';
import type { ResourceType } from '../registry.js';
import type { ServerContext } from '../server-context.js';
import { notFound } from '../status.js';
import type { TableRequest } from './negotiate.js';
import { printerFor } from './printers/index.js';
import { sendObjectTable } from './table.js';

export function handleGetAsTable(ctx: ServerContext, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, table: TableRequest): void {
  const o = ctx.store.getStored(type, namespace, name);
  if (!o) throw notFound(type.resource, type.group, name);
  sendObjectTable(res, printerFor(ctx.store, type), table, o.json);
}
