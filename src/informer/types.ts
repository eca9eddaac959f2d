// Shared vocabulary of the informer core: Kubernetes objects, watch events, list pages and the
// ListerWatcher seam through which the core reaches a server (real HTTP lives in src/kube).

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

/** Any Kubernetes object as it travels as JSON. Never mutate an object the store handed out. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** The Status object the API server sends for errors (HTTP bodies and ERROR watch events). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code: number;
}

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

export interface WatchEvent {
  type: WatchEventType;
  /** For ERROR events this is a Status. */
  object: KubeObject;
  /** Size of the event's line on the wire, in bytes (filled by the decoder). */
  bytes?: number;
  /** Made locally (kwatch reconcile --writes overlay), never sent by a server; traced as `local`. */
  local?: boolean;
}

/** List/watch query options, named exactly as on the wire (API-SEMANTICS §1.2). */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/**
 * Start watching at a resourceVersion instead of listing first (`kwatch replay --from-rv`). `items`, when
 * known (e.g. from a recording), is the state at that resourceVersion: it is replaced into the store before
 * the watch opens, as an informer restarted with a persisted cache would, so later events reach the handlers
 * as updates and deletes of known objects rather than as adds.
 */
export interface StartAt {
  resourceVersion: string;
  /** An expired resourceVersion: 'stop' (the caller explains) or 'relist' as client-go does. */
  onExpired: 'relist' | 'stop';
  items?: KubeObject[];
}

/** One page of a LIST response. */
export interface ListPage {
  kind?: string;
  apiVersion?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
  /** Response body size in bytes (filled by the ListerWatcher when known). */
  bytes?: number;
}

/** An open watch: iterate its events; close() aborts it. Iteration ends when the server closes the stream. */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  close(): void;
  /**
   * Optional: the same events in the same order, grouped as they arrived (e.g. one group per chunk of the
   * body), for a reader that hands a whole group on at once. A stream is read one way or the other, once.
   */
  batches?(): AsyncIterable<readonly WatchEvent[]>;
}

/**
 * How the reflector reaches a server (client-go's ListerWatcher). Implementations throw
 * StatusError for Status answers and ConnectionError when the server cannot be reached
 * (see errors.ts); they never retry on their own.
 */
export interface ListerWatcher {
  list(options: ListOptions, signal?: AbortSignal): Promise<ListPage>;
  watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream>;
}

/** Namespace/name key as client-go's MetaNamespaceKeyFunc builds it. */
export function metaNamespaceKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** client-go's SplitMetaNamespaceKey. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] };
  if (parts.length === 2) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected key format: "${key}"`);
}
