// Content negotiation for Table output, as kube-apiserver's negotiation package does it: the first acceptable Accept
// clause wins; a clause asking for `as=Table;g=meta.k8s.io;v=v1|v1beta1` on JSON makes the answer a Table.
import type { IncomingMessage } from 'node:http';
import { parseAccept } from '../../wire/accept-header.js';
import { badRequest, notAcceptable } from '../status.js';

export type TableVersion = 'v1' | 'v1beta1';
/** TableOptions.includeObject: what each row's `object` carries. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRequest {
  version: TableVersion;
  includeObject: IncludeObject;
}

/** Built-in kinds' serializers; the message of kube's 406 lists them. */
const ACCEPTED = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

/**
 * The Table a request asks for, or undefined for the plain JSON answer. `allowTable` is false for watch-list requests,
 * which kube refuses to transform: their Table clauses are skipped, and 406 NotAcceptable follows when nothing else fits.
 * Accept lists the sim cannot serve otherwise (e.g. protobuf only) keep getting JSON, as before.
 */
export function negotiateTable(accept: string | undefined, allowTable = true): TableVersion | undefined {
  if (!accept) return undefined;
  let refusedTransform = false;
  for (const c of parseAccept(accept)) {
    // The sim encodes JSON only: application/json, application/*, */*.
    const json = (c.type === 'application' && (c.subtype === 'json' || c.subtype === '*')) || (c.type === '*' && c.subtype === '*');
    if (!json || c.q <= 0) continue;
    const { as, g, v } = c.params;
    if (as === undefined && g === undefined && v === undefined) return undefined;
    const metaVersion = g === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1');
    if (as === 'Table' && metaVersion && allowTable) return v as TableVersion;
    // PartialObjectMetadata(List) is a transform kube allows; the sim answers it with full objects (as it always did).
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && metaVersion) return undefined;
    refusedTransform = true;
  }
  if (refusedTransform) throw notAcceptable(ACCEPTED);
  return undefined;
}

/** TableOptions from the query (only includeObject is a public parameter), validated like ValidateTableOptions. */
export function parseIncludeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
}

/** What the request asks for: a Table (with its options) or undefined for the usual JSON. Throws 406/400 like kube. */
export function tableRequest(req: IncomingMessage, allowTable = true): TableRequest | undefined {
  const version = negotiateTable(req.headers.accept, allowTable);
  if (!version) return undefined;
  const q = new URL(req.url ?? '/', 'http://sim').searchParams;
  return { version, includeObject: parseIncludeObject(q) };
}
