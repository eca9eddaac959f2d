// The ListerWatcher over HTTP: LIST and WATCH of one resource (optionally one namespace, one
// name, selectors) against a real API server through a Connection.
import { ConnectionError } from '../../informer/errors.js';
import { decodeWatchBatches } from '../../informer/watch-decoder.js';
import { eachEvent } from '../../informer/watch-streams.js';
import type { ListerWatcher, ListOptions, ListPage, WatchEvent, WatchStream } from '../../informer/types.js';
import { DEFAULT_MAX_OBJECT_BYTES, type Connection, type HttpResponse } from '../http/connection.js';
import { checkListShape, UnexpectedAnswerError } from '../http/unexpected-answer.js';
import { ListBodyStream } from './list-body-stream.js';
import { isAbortError } from '../http/network-error.js';
import { isCborType } from '../http/cbor-media.js';
import { isProtobufType } from '../http/protobuf-media.js';
import { decodeWatchEventLine } from '../../informer/watch-decoder.js';

export interface ListWatchTarget {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  /** undefined = all namespaces (ignored for cluster-scoped resources). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** A single object: sent as fieldSelector metadata.name=NAME, as kubectl get -w NAME does. */
  name?: string;
}

/** A watch event together with the exact line the server sent for it. */
export interface RawWatchEvent {
  line: string;
  event: WatchEvent;
}

export interface RawWatchStream extends AsyncIterable<RawWatchEvent> {
  close(): void;
  /** The same events grouped by the chunk of the body they arrived in (see WatchStream.batches). */
  batches(): AsyncIterable<readonly RawWatchEvent[]>;
}

/** The collection path: /api/v1/pods, /apis/apps/v1/namespaces/ns/deployments, … */
export function resourcePath(t: Pick<ListWatchTarget, 'group' | 'version' | 'resource' | 'namespaced' | 'namespace'>): string {
  const base = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  const ns = t.namespaced && t.namespace ? `/namespaces/${encodeURIComponent(t.namespace)}` : '';
  return `${base}${ns}/${t.resource}`;
}

export interface HttpListerWatcherOptions {
  /**
   * Decode objects without metadata.managedFields, for a cache that strips them anyway (the informer's
   * default transform): they are cut from the text before JSON.parse, which saves much of the decoding
   * work. Never set it when the objects are recorded or shown as sent.
   */
  omitManagedFields?: boolean;
  /**
   * What to ask the server for (`--wire`): JSON, or CBOR (KEP-4222) with JSON as the fallback, as client-go's
   * ClientsPreferCBOR asks (`application/cbor, application/json;q=0.9`): a server without CBOR serving answers JSON.
   * The answer's Content-Type decides how it is read. --raw watches stay JSON (they print the wire's lines).
   */
  wire?: WireFormat;
}

export type WireFormat = 'json' | 'protobuf' | 'cbor';
export const WIRE_FORMATS: readonly WireFormat[] = ['json', 'protobuf', 'cbor'];

/**
 * The Accept headers of each wire, for a list or get and for a watch. protobuf is client-go's protobuf content config
 * (rest.Config ContentType protobuf, AcceptContentTypes "protobuf, json"): custom resources and kinds a server cannot
 * encode come back as JSON, which the answer's Content-Type tells.
 */
const ACCEPT: Record<WireFormat, { list: string; watch: string }> = {
  json: { list: 'application/json', watch: 'application/json' },
  protobuf: { list: 'application/vnd.kubernetes.protobuf, application/json', watch: 'application/vnd.kubernetes.protobuf;stream=watch, application/json' },
  cbor: { list: 'application/cbor, application/json;q=0.9', watch: 'application/cbor, application/json;q=0.9' },
};

export class HttpListerWatcher implements ListerWatcher {
  private readonly path: string;
  private readonly fieldSelector?: string;
  private readonly omitManagedFields: boolean;
  private readonly maxObjectBytes: number;
  private readonly accept: { list: string; watch: string };

  constructor(
    private readonly conn: Connection,
    private readonly target: ListWatchTarget,
    options: HttpListerWatcherOptions = {},
  ) {
    this.omitManagedFields = options.omitManagedFields === true;
    this.accept = ACCEPT[options.wire ?? 'json'];
    this.maxObjectBytes = conn.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.path = resourcePath(target);
    const byName = target.name ? `metadata.name=${target.name}` : undefined;
    this.fieldSelector = [target.fieldSelector, byName].filter(Boolean).join(',') || undefined;
  }

  private query(options: ListOptions, watch: boolean): Record<string, string | number | boolean | undefined> {
    return {
      ...(watch ? { watch: true } : {}),
      labelSelector: options.labelSelector ?? this.target.labelSelector,
      fieldSelector: options.fieldSelector ?? this.fieldSelector,
      resourceVersion: options.resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
      limit: watch ? undefined : options.limit,
      continue: watch ? undefined : options.continue,
      timeoutSeconds: options.timeoutSeconds,
      allowWatchBookmarks: watch && options.allowWatchBookmarks ? true : undefined,
      sendInitialEvents: watch && options.sendInitialEvents !== undefined ? options.sendInitialEvents : undefined,
    };
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    const res = await this.conn.request({ path: this.path, query: this.query(options, false), headers: { Accept: this.accept.list }, signal });
    if (isCborType(header(res.headers['content-type']))) return this.cborList(res);
    if (isProtobufType(header(res.headers['content-type']))) return this.protobufList(res);
    // Items are parsed as the body arrives (a first list may be hundreds of MB); an item or envelope past the
    // bound fails the request, dropping the connection, as soon as it does.
    const body = new ListBodyStream({ omitManagedFields: this.omitManagedFields, maxObjectBytes: this.maxObjectBytes, what: this.path });
    let page: ListPage;
    try {
      for await (const chunk of res.body) body.feed(chunk);
      page = body.end();
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      throw new UnexpectedAnswerError(`the server at ${this.conn.server} sent an unreadable list body for ${this.path}: ${err.message}`, { cause: err });
    }
    page = checkListShape(page, { server: this.conn.server, path: this.path });
    page.metadata ??= {};
    page.bytes = body.bytes;
    fillItemTypeMeta(page);
    return page;
  }

  /** A list answered in CBOR: one data item, read whole, then checked and completed as a JSON list is. */
  private async cborList(res: HttpResponse): Promise<ListPage> {
    const { decodeCborBody } = await import('../http/cbor-body.js');
    return this.binaryList(res, decodeCborBody, (path) => `an unreadable CBOR list body for ${path}`);
  }

  /** A list answered in protobuf: `k8s\0` + runtime.Unknown holding an XList, decoded by src/wire to its JSON. */
  private async protobufList(res: HttpResponse): Promise<ListPage> {
    const { protobufToJson } = await import('../../wire/protobuf/to-json.js');
    return this.binaryList(res, protobufToJson, (path) => `a protobuf list body for ${path} that kwatch cannot read`);
  }

  /** A binary list body is one encoded item: read it whole, decode it, then check and complete it as a JSON list. */
  private async binaryList(res: HttpResponse, decode: (body: Buffer) => unknown, unreadable: (path: string) => string): Promise<ListPage> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const c of res.body) { chunks.push(Buffer.from(c)); bytes += c.length; }
    let value: unknown;
    try {
      value = decode(Buffer.concat(chunks));
    } catch (err) {
      throw new UnexpectedAnswerError(`the server at ${this.conn.server} sent ${unreadable(this.path)}: ${(err as Error).message}`, { cause: err });
    }
    const page = checkListShape<ListPage>(value, { server: this.conn.server, path: this.path });
    page.metadata ??= {};
    page.bytes = bytes;
    if (this.omitManagedFields) for (const item of page.items) delete (item.metadata as { managedFields?: unknown } | undefined)?.managedFields;
    fillItemTypeMeta(page);
    return page;
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    return this.openWatch(options, signal, (body, contentType) => (isCborType(contentType)
      ? cborWatchBatches(body, this.maxObjectBytes, this.omitManagedFields)
      : isProtobufType(contentType) ? protobufWatchBatches(body, this.maxObjectBytes, this.omitManagedFields)
        : decodeWatchBatches(body, { omitManagedFields: this.omitManagedFields, maxLineBytes: this.maxObjectBytes })), this.accept.watch);
  }

  /** A watch that yields each event with the exact line the server sent (kwatch events --raw). */
  async rawWatch(options: ListOptions, signal?: AbortSignal): Promise<RawWatchStream> {
    const maxLineBytes = this.maxObjectBytes;
    return this.openWatch(options, signal, async function* (body) {
      // The decoder reports every line of a batch, in order, before it yields the batch: its n-th event is the n-th line.
      let lines: string[] = [];
      const onLine = (_size: number, bytes: Buffer) => {
        const line = bytes.toString('utf8');
        lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      };
      for await (const batch of decodeWatchBatches(body, { onLine, maxLineBytes })) {
        const batchLines = lines;
        lines = [];
        yield batch.map((event, i) => ({ line: batchLines[i], event }));
      }
    });
  }

  /** Opens the watch; `decode` turns the body into batches of events, which the stream also yields one by one. */
  private async openWatch<T>(options: ListOptions, signal: AbortSignal | undefined, decode: (body: AsyncIterable<Uint8Array>, contentType: string | undefined) => AsyncIterable<readonly T[]>, accept = 'application/json'): Promise<AsyncIterable<T> & { close(): void; batches(): AsyncIterable<readonly T[]> }> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let res: HttpResponse;
    try {
      // A watch asked to end after timeoutSeconds that stays silent well past it is stalled, not quiet.
      const idleTimeoutMs = options.timeoutSeconds ? options.timeoutSeconds * 1000 + WATCH_IDLE_GRACE_MS : 0;
      res = await this.conn.request({ path: this.path, query: this.query(options, true), headers: { Accept: accept }, signal: ac.signal, stream: true, idleTimeoutMs });
    } catch (err) {
      signal?.removeEventListener('abort', onAbort);
      throw err;
    }
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      signal?.removeEventListener('abort', onAbort);
      ac.abort();
    };
    if (res.status !== 200) {
      // client-go requires exactly 200 for a watch
      close();
      throw new ConnectionError(`unexpected status ${res.status} for a watch of ${this.path}`);
    }
    async function* batches(): AsyncGenerator<readonly T[]> {
      try {
        yield* decode(res.body, header(res.headers['content-type']));
      } catch (err) {
        // close() or the caller's signal ends the watch quietly
        if (closed && (isAbortError(err) || err instanceof ConnectionError)) return;
        if (signal?.aborted && isAbortError(err)) return;
        throw err;
      } finally {
        close();
      }
    }
    return {
      close,
      batches,
      [Symbol.asyncIterator]: () => eachEvent(batches()),
    };
  }
}

const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** An application/cbor-seq watch body as batches of events, each item checked as a JSON line is (client-go's checks). */
async function* cborWatchBatches(body: AsyncIterable<Uint8Array>, maxItemBytes: number, omitManagedFields: boolean): AsyncGenerator<WatchEvent[]> {
  const { decodeCborSequence } = await import('../http/cbor-body.js');
  for await (const items of decodeCborSequence(body, maxItemBytes)) {
    yield items.map(({ value, bytes }) => {
      const event = decodeWatchEventLine(JSON.stringify(value), bytes);
      if (omitManagedFields) delete (event.object.metadata as { managedFields?: unknown }).managedFields;
      return event;
    });
  }
}

/** A `;stream=watch` protobuf body as batches of events, each checked as a JSON line is (client-go's checks). */
async function* protobufWatchBatches(body: AsyncIterable<Uint8Array>, maxFrameBytes: number, omitManagedFields: boolean): AsyncGenerator<WatchEvent[]> {
  const { decodeWatchEvent, watchFrames } = await import('../../wire/protobuf/watch-event.js');
  for await (const frames of watchFrames(body, maxFrameBytes)) {
    yield frames.map(({ frame, bytes }) => {
      let decoded: unknown;
      try {
        decoded = decodeWatchEvent(frame);
      } catch (err) {
        throw new UnexpectedAnswerError(`a protobuf watch event kwatch cannot read: ${(err as Error).message}`, { cause: err });
      }
      const event = decodeWatchEventLine(JSON.stringify(decoded), bytes);
      if (omitManagedFields) delete (event.object.metadata as { managedFields?: unknown }).managedFields;
      return event;
    });
  }
}

/** How long past its timeoutSeconds a silent watch is given before it counts as stalled. */
const WATCH_IDLE_GRACE_MS = 60_000;

/**
 * The API server sends typed-list items without kind/apiVersion; like client-go's unstructured decoder,
 * fill them in from the list's kind minus "List", so every cached object says what it is (the Secret
 * masking, for one, relies on it).
 */
function fillItemTypeMeta(page: ListPage): void {
  const listKind = page.kind;
  if (!listKind || !listKind.endsWith('List')) return;
  const kind = listKind.slice(0, -'List'.length);
  for (const item of page.items) {
    if (item.kind === undefined) item.kind = kind;
    if (item.apiVersion === undefined && page.apiVersion !== undefined) item.apiVersion = page.apiVersion;
  }
}
