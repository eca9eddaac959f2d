// An object the endpoint sent a client (a list item, a get, a watch event's object, a write's answer): its identity
// read at once, the object itself decoded only when something asks (a write's diff, a recording). Forwarded bodies are
// scanned, not parsed (json-scan.ts); what arrives decoded (protobuf, a write's answer) is wrapped as it is.
import { eventOwnerReferencesJson } from './owner-scan.js';
import { objectKey } from './request-info.js';

export interface SentObject {
  /** namespace/name, or the name of a cluster-scoped object; undefined when it has no name (a Status, a list). */
  readonly key?: string;
  readonly rv?: string;
  readonly uid?: string;
  /** The uids of its owner references. */
  readonly owners: readonly string[];
  /** The object as it was sent. */
  raw(): Record<string, unknown>;
  /** The object without metadata.managedFields (which change on every write): what diffs are made against. */
  object(): Record<string, unknown>;
  /**
   * Makes the object its own, when it reads the bytes of a chunk it only borrowed (a watch line, read where it lies):
   * to be called before it is kept past the call it was made in. Answers the object.
   */
  keep?(): SentObject;
}

interface Meta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  ownerReferences?: { uid?: string }[];
}

/** An object already decoded. */
export function decodedObject(o: Record<string, unknown>): SentObject {
  const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as Meta;
  let stripped: Record<string, unknown> | undefined;
  return {
    key: typeof meta.name === 'string' ? objectKey(meta.namespace, meta.name) : undefined,
    rv: meta.resourceVersion === undefined ? undefined : String(meta.resourceVersion),
    uid: meta.uid,
    owners: ownerUids(meta.ownerReferences),
    raw: () => o,
    object: () => (stripped ??= withoutManagedFields(o)),
  };
}

/** What a scan read of an object's metadata. */
export interface Identity {
  key?: string;
  rv?: string;
  uid?: string;
  /** metadata.ownerReferences as it was sent (parsed when asked). */
  ownersJson?: string;
  /** The scan stopped before it met any: read them from the object when asked. */
  ownersUnread?: boolean;
}

/** An object known by its identity, decoded from its bytes when asked. */
export class ScannedObject implements SentObject {
  readonly key?: string;
  readonly rv?: string;
  readonly uid?: string;
  private ownersJson?: string;
  private ownersUnread: boolean;
  private ownerUids?: string[];
  private decoded?: Record<string, unknown>;
  private stripped?: Record<string, unknown>;

  /**
   * `bytes`: the object's JSON (a view into the body it came in is kept alive while this is the newest version; or
   * those bytes as a latin1 string), or the JSON of what holds it as `member` (a watch event's line, whose `object`
   * it is).
   */
  constructor(id: Identity, private bytes: Buffer | string | undefined, private readonly member?: string, private borrowed = false) {
    this.key = id.key;
    this.rv = id.rv;
    this.uid = id.uid;
    this.ownersJson = id.ownersJson;
    this.ownersUnread = id.ownersUnread === true;
  }

  get owners(): string[] {
    if (!this.ownerUids) {
      if (this.ownersUnread) this.ownerUids = this.unreadOwners();
      else this.ownerUids = this.ownersJson === undefined ? [] : ownerUids(JSON.parse(this.ownersJson) as Meta['ownerReferences']);
      this.ownersJson = undefined;
    }
    return this.ownerUids;
  }

  /**
   * Owners the scan stopped before: a watch event's are read from its line while this has it (a write asks for the
   * owners of every recent event: decoding each whole cost about ten times the scan), others from the object decoded.
   */
  private unreadOwners(): string[] {
    if (this.member === 'object' && this.decoded === undefined && this.bytes !== undefined) {
      const b = typeof this.bytes === 'string' ? Buffer.from(this.bytes, 'latin1') : this.bytes;
      const json = eventOwnerReferencesJson(b);
      if (json === null) return [];
      if (json !== undefined) return ownerUids(JSON.parse(json) as Meta['ownerReferences']);
    }
    return ownerUids((this.raw().metadata as Meta | undefined)?.ownerReferences);
  }

  keep(): SentObject {
    if (this.borrowed) {
      this.borrowed = false;
      // Copied (as a one-byte string: no Buffer to make): a view would keep the whole chunk it came in alive for as
      // long as this is the object's newest version.
      if (Buffer.isBuffer(this.bytes)) this.bytes = this.bytes.toString('latin1');
    }
    return this;
  }

  raw(): Record<string, unknown> {
    if (!this.decoded) {
      const b = this.bytes!;
      const v = JSON.parse(typeof b === 'string' ? Buffer.from(b, 'latin1').toString('utf8') : b.toString('utf8')) as Record<string, unknown>;
      this.decoded = this.member === undefined ? v : (v[this.member] as Record<string, unknown>);
      this.bytes = undefined;
    }
    return this.decoded;
  }

  object(): Record<string, unknown> {
    return (this.stripped ??= withoutManagedFields(this.raw()));
  }
}

function ownerUids(refs: Meta['ownerReferences']): string[] {
  return Array.isArray(refs) ? refs.map((r) => String(r?.uid ?? '')) : [];
}

function withoutManagedFields(o: Record<string, unknown>): Record<string, unknown> {
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (!meta || meta.managedFields === undefined) return o;
  const { managedFields: _m, ...rest } = meta;
  return { ...o, metadata: rest };
}
