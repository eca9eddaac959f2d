// `reconcile --exec --record FILE`: what the controller process was sent (each list page, each single-object GET, each
// watch connection and its events) and what it wrote, as a kwatch recording (format 2). The kinds are learnt as the controller asks for
// them, so each gets a `resource` line when first met, named from the target's discovery; `replay`,
// `reconcile --from-recording` and `reconcile --exec --from-recording` read the file as any other recording.
import type { ListOptions, WatchEvent } from '../informer/types.js';
import type { RecordingEntry, RecordingHeader, RecordingNote } from '../informer/recording/recording-format.js';
import type { RecordingSink } from '../kube/recording/recording-file.js';
import { decodeBody } from './body-decode.js';
import { objectKey, type RequestInfo } from './request-info.js';
import type { CapturedResponse } from './response-capture.js';

type RecordedResource = RecordingHeader['resources'][number];

export interface WireRecorderOptions {
  file: RecordingSink & { write(entry: RecordingEntry | RecordingNote): void };
  /** The kind and scope of a group/version/resource, from the target's discovery (undefined: not a kind it serves). */
  describe(group: string, version: string, resource: string): Promise<{ kind: string; namespaced: boolean } | undefined>;
  /** Told of each resource as it is declared (the file's masking needs its kind). */
  declared?(index: number, r: RecordedResource): void;
}

/** Query parameters a list or watch is recorded with, as ListOptions names them. */
const STRING_OPTIONS = ['resourceVersion', 'resourceVersionMatch', 'continue', 'labelSelector', 'fieldSelector'] as const;

export class WireRecorder {
  /** By collection (resource, namespace, selectors): its index, once declared (a promise while discovery answers). */
  private readonly indexes = new Map<string, Promise<number | undefined>>();
  /** By group/version/resource: the index of its first collection (where its writes are filed). */
  private readonly firstOf = new Map<string, Promise<number | undefined>>();
  private count = 0;
  /** Lines go out in the order things happened, whatever discovery takes: one chain. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: WireRecorderOptions) {}

  /** A LIST page answered 200. */
  list(info: RequestInfo, c: CapturedResponse, ms: number): void {
    const t = this.o.file.elapsed();
    const conn = this.o.file.nextConn();
    this.then(info, (res) => {
      const page = decodeBody(c.body, c.contentType) as { kind?: string; items?: unknown[]; metadata?: Record<string, unknown> } | undefined;
      if (!page || !Array.isArray(page.items) || page.kind === 'Table') return;
      this.o.file.write({ rec: 'list', t, res, conn, options: optionsOf(info), page: page as never, bytes: c.bytes, ms });
    });
  }

  /**
   * A GET of one object answered 200 or 404, recorded as what it is to a reader: a list of that collection with
   * fieldSelector metadata.name=NAME (as client-go's single-object informers list it), of one item or none. A replay
   * and `--from-recording` then serve the object the controller read, as it was when it read it.
   */
  get(info: RequestInfo, c: CapturedResponse, ms: number): void {
    if (info.name === undefined || info.subresource !== undefined || (c.status !== 200 && c.status !== 404)) return;
    const t = this.o.file.elapsed();
    const conn = this.o.file.nextConn();
    const fieldSelector = `metadata.name=${info.name}`;
    this.then({ ...info, query: new URLSearchParams({ fieldSelector }) }, (res) => {
      const object = c.status === 200 ? decodeBody(c.body, c.contentType) : undefined;
      const meta = object?.metadata as { name?: string; resourceVersion?: string } | undefined;
      // A Table (kubectl's human output) or anything else that is not the object is not what the controller holds.
      if (c.status === 200 && (!object || object.kind === 'Table' || object.kind === 'Status' || meta?.name !== info.name)) return;
      const page = { metadata: meta?.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}, items: object ? [object] : [] };
      this.o.file.write({ rec: 'list', t, res, conn, options: { fieldSelector }, page: page as never, bytes: c.bytes, ms });
    });
  }

  /** A watch opened: its connection number, for its events and its end. */
  watchStart(info: RequestInfo): number {
    const t = this.o.file.elapsed();
    const conn = this.o.file.nextConn();
    this.then(info, (res) => this.o.file.write({ rec: 'watch-start', t, res, conn, options: optionsOf(info) }));
    return conn;
  }

  watchEvent(info: RequestInfo, conn: number, type: string, object: Record<string, unknown> | undefined): void {
    if (!object) return;
    const t = this.o.file.elapsed();
    this.then(info, (res) => this.o.file.write({ rec: 'event', t, res, conn, event: { type, object } as WatchEvent }));
  }

  watchEnd(info: RequestInfo, conn: number, reason: string): void {
    const t = this.o.file.elapsed();
    const end = reason === 'client' ? 'aborted' : reason === 'eof' || reason === 'timeout' ? 'eof' : 'error';
    this.then(info, (res) => this.o.file.write({ rec: 'watch-end', t, res, conn, reason: end, ...(end === 'error' ? { error: reason } : {}) }));
  }

  /** A write the controller sent (`sent`: its body, decoded), with the answer it got. */
  write(info: RequestInfo, client: string, mode: string, c: CapturedResponse, sent?: Record<string, unknown>): void {
    const t = this.o.file.elapsed();
    // Filed under the resource as the controller first read it; a kind it only writes gets its whole collection.
    const index = this.firstOf.get(`${info.group}/${info.version}/${info.resource}`) ?? this.indexOf({ ...info, namespace: undefined, query: new URLSearchParams() });
    this.after(index, (res) => {
      const answer = decodeBody(c.body, c.contentType);
      const stored = answer?.kind !== 'Status' ? answer : undefined;
      // A refused create's answer is a Status: the name is the one the controller sent.
      const meta = (stored?.metadata ?? sent?.metadata) as { name?: string; namespace?: string } | undefined;
      const key = objectKey(info.namespace ?? meta?.namespace, info.name ?? meta?.name ?? '');
      this.o.file.write({ rec: 'write', t, res, conn: 0, client, verb: info.verb, key, code: c.status, mode, ...(stored ? { object: stored } : {}) });
    });
  }

  /** Every line is written (discovery answered for each resource). */
  flushed(): Promise<void> {
    return this.chain;
  }

  private then(info: RequestInfo, write: (res: number) => void): void {
    this.after(this.indexOf(info), write);
  }

  /** Writes once the resource's index is known, in the order things happened. */
  private after(index: Promise<number | undefined>, write: (res: number) => void): void {
    this.chain = this.chain.then(async () => {
      const res = await index;
      if (res !== undefined) write(res);
    });
  }

  private indexOf(info: RequestInfo): Promise<number | undefined> {
    const namespace = info.namespace;
    const labelSelector = info.query.get('labelSelector') ?? undefined;
    const fieldSelector = info.query.get('fieldSelector') ?? undefined;
    const id = `${info.group}/${info.version}/${info.resource} ${namespace ?? '*'} ${labelSelector ?? ''} ${fieldSelector ?? ''}`;
    let index = this.indexes.get(id);
    if (!index) {
      const t = this.o.file.elapsed();
      const described = this.o.describe(info.group, info.version, info.resource).catch(() => undefined);
      // Declared in the chain, so its line precedes the first entry that refers to it.
      index = new Promise<number | undefined>((resolve) => {
        this.chain = this.chain.then(async () => {
          const d = await described;
          if (!d) return resolve(undefined);
          const r: RecordedResource = {
            group: info.group, version: info.version, resource: info.resource, kind: d.kind, namespaced: d.namespaced,
            ...(namespace !== undefined ? { namespace } : {}), ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}),
          };
          const res = this.count++;
          this.o.declared?.(res, r);
          this.o.file.write({ rec: 'resource', t, res, conn: 0, resource: r });
          resolve(res);
        });
      });
      this.indexes.set(id, index);
      const gvr = `${info.group}/${info.version}/${info.resource}`;
      if (!this.firstOf.has(gvr)) this.firstOf.set(gvr, index);
    }
    return index;
  }
}

function optionsOf(info: RequestInfo): ListOptions {
  const q = info.query;
  const o: Record<string, unknown> = {};
  for (const k of STRING_OPTIONS) {
    const v = q.get(k);
    if (v !== null) o[k] = v;
  }
  const limit = Number(q.get('limit'));
  if (q.get('limit') !== null && Number.isSafeInteger(limit)) o.limit = limit;
  const timeout = Number(q.get('timeoutSeconds'));
  if (q.get('timeoutSeconds') !== null && Number.isSafeInteger(timeout)) o.timeoutSeconds = timeout;
  for (const k of ['allowWatchBookmarks', 'sendInitialEvents'] as const) if (q.get(k) !== null) o[k] = q.get(k) === 'true' || q.get(k) === '1';
  return o as ListOptions;
}
