// What the trace needs of a body the endpoint forwards, read without decoding it whole: a list page's metadata and
// its items' identities, a got object's identity, a watch event's type and object identity. JSON is scanned
// (json-scan.ts); a protobuf body is decoded as before (decodeBody). A body that cannot be read yields less, never an
// error: the client has it already.
import { decodeBody } from './body-decode.js';
import { isCborType } from '../kube/http/cbor-media.js';
import { isProtobufType } from '../kube/http/protobuf-media.js';
import { JsonScanError, KnownStrings, members, OPEN_BRACE, OPEN_BRACKET, skipSpace, STOP, stringAt, valueEnd } from './json-scan.js';
import { listHead, splitBody } from './list-splitter.js';
import { objectKey } from './request-info.js';
import { decodedObject, type Identity, ScannedObject, type SentObject } from './sent-object.js';

export interface ReadBody {
  kind?: string;
  /** A list's metadata. */
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** A list's items (undefined for a Table or a single object). */
  items?: SentObject[];
  /** A Table's row count. */
  rows?: number;
  /** The body as one object (what a get answers). */
  object?: SentObject;
}

/** Whether a body of this type is JSON text, which the scans below read where it lies (else it is decoded whole). */
export function isScannedType(contentType: string | undefined): boolean {
  return !isProtobufType(contentType) && !isCborType(contentType);
}

/** A JSON list page's facts (kind, metadata, how many items or rows) with its items counted, not read. */
export interface ListFacts {
  kind?: string;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  itemCount?: number;
  /** A list whose items were not counted (listHeadFacts). */
  uncounted?: boolean;
  rows?: number;
}

/**
 * What the trace says of a JSON list page at once, its items counted and left unread (client-session.ts reads them if
 * a write or a check asks); undefined when the body is not one complete JSON object.
 */
export function listFacts(chunks: readonly Buffer[] | undefined): ListFacts | undefined {
  if (!chunks || chunks.length === 0) return undefined;
  const split = splitBody(chunks, true);
  if (!split) return undefined;
  const meta = (split.metadata ?? {}) as { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  if (split.itemCount === undefined && split.rows === undefined) return { kind: split.kind };
  return { kind: split.kind, resourceVersion: meta.resourceVersion, continue: meta.continue, remainingItemCount: meta.remainingItemCount, itemCount: split.itemCount, rows: split.rows };
}

/**
 * A JSON list's facts from its head alone, its items neither counted nor read (what nothing will show, a `list`
 * record's count, is not worked out); undefined when its head does not say (its metadata after its items, a Table,
 * not a list): then listFacts.
 */
export function listHeadFacts(chunks: readonly Buffer[] | undefined): ListFacts | undefined {
  if (!chunks || chunks.length === 0) return undefined;
  const head = listHead(chunks);
  if (!head) return undefined;
  const meta = (head.metadata ?? {}) as { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  return { kind: head.kind, resourceVersion: meta.resourceVersion, continue: meta.continue, remainingItemCount: meta.remainingItemCount, ...(head.itemCount !== undefined ? { itemCount: head.itemCount } : { uncounted: true }) };
}

/** Reads a GET answer, a list page or an object, from the chunks it was sent in; undefined when it is not an object. */
export function readBody(chunks: readonly Buffer[] | undefined, contentType: string | undefined): ReadBody | undefined {
  if (!chunks || chunks.length === 0) return undefined;
  if (!isScannedType(contentType)) return fromDecoded(decodeBody(joined(chunks), contentType));
  const split = splitBody(chunks);
  if (!split) return undefined;
  const meta = (split.metadata ?? {}) as { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  const out: ReadBody = { kind: split.kind };
  if (split.items || split.rows !== undefined) {
    out.resourceVersion = meta.resourceVersion;
    out.continue = meta.continue;
    out.remainingItemCount = meta.remainingItemCount;
    if (split.items) {
      try {
        out.items = split.items.map((b) => scanObject(b, 0, b.length));
      } catch (err) {
        if (!(err instanceof JsonScanError || err instanceof SyntaxError)) throw err;
      }
    } else out.rows = split.rows;
    return out;
  }
  try {
    const b = joined(chunks);
    const start = skipSpace(b, 0);
    out.object = scanObject(b, start, b.length);
    return out;
  } catch (err) {
    if (err instanceof JsonScanError || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

function joined(chunks: readonly Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/**
 * An object's identity from its metadata; the rest of it is left unread. Its owner references too, unless they come
 * before its identity: they are read from its bytes if ever asked for (owner-scan.ts). A 20,000-pod LIST had the
 * endpoint walk every pod's labels and owner references for them.
 */
export function scanObject(b: Buffer, start: number, end: number): SentObject {
  return new ScannedObject(identityOf(b, start, false), start === 0 && end === b.length ? b : b.subarray(start, end));
}

/** The member names each scan reads; every other member is skipped unread. */
const OBJECT_MEMBERS = new KnownStrings(['metadata']);
const METADATA_MEMBERS = new KnownStrings(['name', 'namespace', 'resourceVersion', 'uid', 'ownerReferences', 'managedFields']);
const TABLE_MEMBERS = new KnownStrings(['kind', 'rows']);
const ROW_MEMBERS = new KnownStrings(['object']);
const EVENT_MEMBERS = new KnownStrings(['type', 'object']);
/** A watch event's type, as the constant (no string made per event). */
const EVENT_TYPES = new KnownStrings(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * The identity of the object whose brace is at `start`, read from its metadata: nothing after that is read. With
 * `owners` false, the walk stops as soon as the identity is known (owner references not met by then are left unread).
 */
function identityOf(b: Buffer, start: number, owners = true): Identity {
  const id: Identity = {};
  let name: string | undefined;
  let namespace: string | undefined;
  members(b, start, (_metadata, s) => {
    if (b[s] === 0x7b) {
      members(b, s, (k, vs) => {
        if (k === 'ownerReferences') {
          const ve = valueEnd(b, vs);
          id.ownersJson = b.toString('utf8', vs, ve);
          return ve;
        }
        if (k === 'managedFields') {
          // managedFields, the bulk of most metadata, comes last as kube writes it: once the identity is known, the
          // rest is not read, and owner references not met yet are looked up in the object if ever asked for.
          if (name !== undefined && namespace !== undefined && id.rv !== undefined && id.uid !== undefined) {
            if (id.ownersJson === undefined) id.ownersUnread = true;
            return STOP;
          }
          return undefined;
        }
        const ve = valueEnd(b, vs);
        const v = stringAt(b, vs, ve);
        if (k === 'name') name = v;
        else if (k === 'namespace') namespace = v;
        else if (k === 'resourceVersion') id.rv = v;
        else id.uid = v;
        if (!owners && name !== undefined && namespace !== undefined && id.rv !== undefined && id.uid !== undefined) {
          if (id.ownersJson === undefined) id.ownersUnread = true;
          return STOP;
        }
        return ve;
      }, METADATA_MEMBERS);
    }
    return STOP;
  }, OBJECT_MEMBERS);
  if (name !== undefined) id.key = objectKey(namespace, name);
  return id;
}

/**
 * When the object at `start` is a Table: the identity of its first row's object (a watch event's Table has one row;
 * with includeObject=None the row has no object, and the identity is empty). Undefined for anything else.
 */
function tableRowIdentity(b: Buffer, start: number): { id: Identity } | undefined {
  let kind: string | undefined;
  let id: Identity | undefined;
  members(b, start, (key, s) => {
    if (key === 'kind') {
      const e = valueEnd(b, s);
      kind = stringAt(b, s, e);
      return kind === 'Table' ? e : STOP;
    }
    id = {};
    if (b[s] !== OPEN_BRACKET) return STOP;
    const first = skipSpace(b, s + 1);
    if (b[first] === OPEN_BRACE) {
      members(b, first, (_object, vs) => {
        if (b[vs] !== OPEN_BRACE) return undefined;
        id = identityOf(b, vs);
        return STOP;
      }, ROW_MEMBERS);
    }
    return STOP;
  }, TABLE_MEMBERS);
  return kind === 'Table' && id ? { id } : undefined;
}

function fromDecoded(body: Record<string, unknown> | undefined): ReadBody | undefined {
  if (!body) return undefined;
  const meta = (body.metadata ?? {}) as { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  const kind = typeof body.kind === 'string' ? body.kind : undefined;
  if (Array.isArray(body.items)) {
    const items = body.items.filter((it): it is Record<string, unknown> => !!it && typeof it === 'object').map(decodedObject);
    return { kind, resourceVersion: meta.resourceVersion, continue: meta.continue, remainingItemCount: meta.remainingItemCount, items };
  }
  if (Array.isArray(body.rows)) return { kind, resourceVersion: meta.resourceVersion, continue: meta.continue, remainingItemCount: meta.remainingItemCount, rows: body.rows.length };
  return { kind, object: decodedObject(body) };
}

/** A watch event as the trace and the faults see it. */
export interface ScannedEvent {
  type: string;
  key?: string;
  rv?: string;
  object?: SentObject;
  /** An ERROR event's Status. */
  status?: { code?: number; message?: string };
  /**
   * The object is a Table (a watch asked for as=Table, as `kubectl get -w` does): `key`, `rv` and the object's uid are
   * its row's object's; the object itself is not the resource.
   */
  table?: boolean;
}

/** A watch event already decoded (one item of a CBOR watch), as the trace sees it. */
export function decodedWatchEvent(v: unknown): ScannedEvent | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const { type, object } = v as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !object || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const obj = object as Record<string, unknown>;
  if (type === 'ERROR') return { type, status: { code: typeof obj.code === 'number' ? obj.code : undefined, message: typeof obj.message === 'string' ? obj.message : undefined } };
  const sent = decodedObject(obj);
  const meta = (obj.metadata ?? {}) as { name?: unknown; namespace?: unknown; resourceVersion?: unknown };
  return {
    type,
    key: type === 'BOOKMARK' || typeof meta.name !== 'string' ? undefined : objectKey(typeof meta.namespace === 'string' ? meta.namespace : undefined, meta.name),
    rv: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined,
    object: sent,
  };
}

/** One line of a JSON watch stream, `line[from, to)` (its newline included or not). Read up to the object's metadata. */
export function scanWatchEvent(line: Buffer, from = 0, to = line.length): ScannedEvent {
  try {
    let type: string | undefined;
    let id: Identity | undefined;
    let table = false;
    members(line, skipSpace(line, from), (key, s) => {
      if (key === 'type') {
        const e = valueEnd(line, s);
        type = EVENT_TYPES.match(line, s, e) ?? stringAt(line, s, e);
        return id ? STOP : e;
      }
      if (line[s] === 0x7b) {
        // Owners are read if a write asks (sent-object.ts): walking on to them cost a replayed event ~5 µs.
        id = identityOf(line, s, false);
        const row = id.key === undefined ? tableRowIdentity(line, s) : undefined;
        if (row) {
          table = true;
          id = { ...row.id, rv: row.id.rv ?? id.rv };
        }
        // kube writes the type first: the rest of the object need not be read.
        return type !== undefined ? STOP : undefined;
      }
      return undefined;
    }, EVENT_MEMBERS);
    const t = type ?? 'UNKNOWN';
    // Borrowed: whoever keeps it past this call copies it then (keep()); a version the client was already sent on
    // another of its watches is not copied again.
    const object = id ? new ScannedObject(id, line.subarray(from, to), 'object', true) : undefined;
    const status = t === 'ERROR' && object ? (object.raw() as ScannedEvent['status']) : undefined;
    return { type: t, key: id?.key, rv: id?.rv, object, ...(status ? { status } : {}), ...(table ? { table } : {}) };
  } catch (err) {
    if (err instanceof JsonScanError || err instanceof SyntaxError) return { type: 'UNKNOWN' };
    throw err;
  }
}
