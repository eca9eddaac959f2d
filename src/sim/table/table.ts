// Assembles meta.k8s.io Tables (kube's asTable): header, list metadata, one row per object whose `object` follows
// includeObject — and writes them for LIST, GET and each WATCH event. Content-Type stays application/json, as kube sends it.
import type { ServerResponse } from 'node:http';
import type { ColumnDefinition } from './columns.js';
import { goJson } from './go-json.js';
import type { IncludeObject, TableRequest } from './negotiate.js';
import type { Printer, PrintableObject } from './printer.js';
import { sendJoined, sendJson } from '../respond.js';

/** ListMeta of the Table: the list's, or for one object its resourceVersion. */
export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

function metaJson(m: TableListMeta): string {
  const parts: string[] = [];
  if (m.resourceVersion) parts.push(`"resourceVersion":${JSON.stringify(m.resourceVersion)}`);
  if (m.continue) parts.push(`"continue":${JSON.stringify(m.continue)}`);
  if (m.remainingItemCount !== undefined) parts.push(`"remainingItemCount":${m.remainingItemCount}`);
  return `{${parts.join(',')}}`;
}

/** Everything of the Table before its rows; columnDefinitions is null when headers are left out (later watch events). */
function tableHead(req: TableRequest, columns: ColumnDefinition[] | null, meta: TableListMeta): string {
  return `{"kind":"Table","apiVersion":"meta.k8s.io/${req.version}","metadata":${metaJson(meta)},"columnDefinitions":${columns ? goJson(columns) : 'null'},"rows":[`;
}

/** The row's `object`: nothing, a PartialObjectMetadata (in the Table's group version), or the object as stored. */
function rowObject(include: IncludeObject, version: string, obj: PrintableObject, json: string): string {
  switch (include) {
    case 'None': return 'null';
    case 'Object': return json;
    default: return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(obj.metadata ?? {})}}`;
  }
}

/** One row as JSON; `json` is the stored object (with kind and apiVersion). */
export function rowJson(printer: Printer, req: TableRequest, json: string, now: number, obj: PrintableObject = JSON.parse(json) as PrintableObject): string {
  const row = printer.row(obj, now);
  let out = `{"cells":${goJson(row.cells)}`;
  if (row.conditions) out += `,"conditions":${goJson(row.conditions)}`;
  return `${out},"object":${rowObject(req.includeObject, req.version, obj, json)}}`;
}

/** Writes a LIST page as a Table, rows streamed like the plain list's items. */
export async function sendTableList(res: ServerResponse, printer: Printer, req: TableRequest, items: readonly { json: string }[], meta: TableListMeta): Promise<void> {
  const now = Date.now();
  const rows = items.map((o) => rowJson(printer, req, o.json, now));
  await sendJoined(res, 200, tableHead(req, printer.columns, meta), rows, ']}');
}

/** The Table of one object: a single row, the object's resourceVersion as the Table's. */
export function singleObjectTable(printer: Printer, req: TableRequest, json: string, withHeaders: boolean, now = Date.now()): string {
  const obj = JSON.parse(json) as PrintableObject;
  const rv = typeof obj.metadata?.resourceVersion === 'string' ? obj.metadata.resourceVersion : undefined;
  return tableHead(req, withHeaders ? printer.columns : null, { resourceVersion: rv }) + rowJson(printer, req, json, now, obj) + ']}';
}

/** GET of one object answered as a Table. */
export function sendObjectTable(res: ServerResponse, printer: Printer, req: TableRequest, json: string): void {
  sendJson(res, 200, singleObjectTable(printer, req, json, true));
}

/**
 * Watch events of a Table watch: each event's object is a one-row Table. Like kube's watchEmbeddedEncoder, only the
 * first event carries the column definitions; the later ones set NoHeaders. ERROR events (Status) pass untransformed.
 */
export class TableWatchEncoder {
  private headersSent = false;
  constructor(private readonly printer: Printer, private readonly req: TableRequest) {}

  /** A watch event line (ending in "\n") whose object is the Table of `json`. */
  eventLine(type: string, json: string): string {
    const table = singleObjectTable(this.printer, this.req, json, !this.headersSent);
    this.headersSent = true;
    return `{"type":"${type}","object":${table}}\n`;
  }
}
