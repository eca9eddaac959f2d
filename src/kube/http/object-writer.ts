// reconcile's ObjectWriter over HTTP: create (POST), update (PUT), patch (PATCH with the patch type's
// content type), delete — optionally on the status subresource, with dryRun=All and fieldManager as
// kubectl sends them. Failures are the server's StatusError.
import type { KubeObject } from '../../informer/types.js';
import type { ObjectWriter, WriteRequest } from '../../reconcile/writer.js';
import type { PatchType } from '../../reconcile/types.js';
import type { Connection } from './connection.js';
import { resourcePath } from '../lister-watchers/http-lister-watcher.js';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

const METHODS = { create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE' } as const;

export class HttpObjectWriter implements ObjectWriter {
  constructor(private readonly conn: Connection) {}

  async write(req: WriteRequest, signal?: AbortSignal): Promise<KubeObject | undefined> {
    const r = req.resource;
    const collection = resourcePath({ group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced, namespace: req.namespace });
    const path = req.verb === 'create' ? collection : `${collection}/${encodeURIComponent(req.name)}${req.subresource ? `/${req.subresource}` : ''}`;
    const query: Record<string, string | undefined> = { dryRun: req.dryRun ? 'All' : undefined };
    if (req.verb !== 'delete') query.fieldManager = req.fieldManager;
    if (req.verb === 'patch' && req.patchType === 'apply' && req.force) query.force = 'true';
    const contentType = req.verb === 'patch' ? PATCH_CONTENT_TYPES[req.patchType ?? 'merge'] : 'application/json';
    const res = await this.conn.request({
      method: METHODS[req.verb],
      path,
      query,
      headers: { 'Content-Type': contentType, Accept: 'application/json' },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal,
    });
    const answer = (await res.body.json()) as KubeObject;
    // A delete answers the object (graceful) or a Success Status (gone at once).
    return answer && answer.kind !== 'Status' ? answer : undefined;
  }
}
