// The one seam through which reconcile's writes reach a server (--writes server-dry-run and apply);
// src/kube implements it over HTTP. Intercepted and overlaid writes never reach it.
import type { KubeObject } from '../informer/types.js';
import type { ResourceInfo } from './catalog.js';
import type { PatchType } from './types.js';

export type WireVerb = 'create' | 'update' | 'patch' | 'delete';

export interface WriteRequest {
  verb: WireVerb;
  resource: ResourceInfo;
  namespace?: string;
  name: string;
  /** The object (create, update), the patch (patch), or DeleteOptions (delete). */
  body?: unknown;
  patchType?: PatchType;
  subresource?: 'status';
  fieldManager?: string;
  force?: boolean;
  /** Sent with dryRun=All: the server validates and answers, stores nothing. */
  dryRun: boolean;
}

export interface ObjectWriter {
  /** The object the server stored (or would store); throws StatusError with the server's answer. */
  write(req: WriteRequest, signal?: AbortSignal): Promise<KubeObject | undefined>;
}
