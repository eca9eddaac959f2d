// --expect with --exec: the object an expectation names, read where the controller's writes landed — the fork under
// overlay, the target otherwise (apply stores there; intercept and server-dry-run leave it as it was).
import type { KubeObject } from '../informer/types.js';
import type { Connection } from '../kube/http/connection.js';
import type { Expectation } from '../reconcile/expectations.js';
import type { Fork } from './fork.js';
import { upstreamResourceTypes } from './upstream-kinds.js';

export interface ExpectedObject {
  /** The resource as the trace names it (configmaps, deployments.apps). */
  resource: string;
  found: KubeObject | undefined;
}

export class ExpectedKindError extends Error {}

export async function readExpectedObject(e: Expectation, upstream: Connection, fork: Fork | undefined): Promise<ExpectedObject> {
  const slash = e.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : e.apiVersion.slice(0, slash);
  const version = slash < 0 ? e.apiVersion : e.apiVersion.slice(slash + 1);
  const type = (await upstreamResourceTypes(upstream, group, version)).find((t) => t.kind === e.kind);
  if (!type) throw new ExpectedKindError(`${e.where}: the target serves no kind ${e.kind} in ${e.apiVersion}`);
  const resource = group ? `${type.resource}.${group}` : type.resource;
  const namespace = type.namespaced ? (e.namespace ?? 'default') : undefined;
  if (fork) {
    await fork.ensure({ group, version, resource: type.resource, namespace, name: e.name });
    return { resource, found: fork.store.get({ group, version, resource: type.resource }, namespace, e.name) as KubeObject | undefined };
  }
  const path = `${group ? `/apis/${group}/${version}` : `/api/${version}`}${namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${type.resource}/${encodeURIComponent(e.name)}`;
  const res = await upstream.request({ path, headers: { Accept: 'application/json' }, allowErrorStatus: true });
  if (res.status === 404) { await res.body.text(); return { resource, found: undefined }; }
  if (res.status < 200 || res.status >= 300) throw new ExpectedKindError(`${e.where}: reading ${path} from the target answered ${res.status}`);
  return { resource, found: (await res.body.json()) as KubeObject };
}
