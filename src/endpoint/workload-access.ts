// Requests that act on a running workload rather than on stored objects: a pod's exec, attach and portforward, and
// whatever a pod, service or node `proxy` passes to the workload behind it. No dry run holds them back (kube-apiserver
// streams or proxies them; dryRun means nothing there), so the modes that promise nothing reaches the cluster refuse
// them: every exec/attach/portforward request (kubectl exec upgrades a POST or a GET), and every proxy request but GET.
import { ApiStatusError } from '../wire/api-status.js';
import type { RequestInfo } from './request-info.js';

const STREAMING_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);

/** Whether the request reaches through the API server to a workload (a proxy GET included). */
export const isWorkloadAccess = (i: RequestInfo): boolean =>
  i.isResource && i.name !== undefined && i.subresource !== undefined && (i.subresource === 'proxy' || STREAMING_SUBRESOURCES.has(i.subresource));

/** What the trace's `refused` says of such a request. */
export const WORKLOAD_ACCESS_REFUSED = 'acts on the running workload: no dry run possible';

/** The Status that refuses the request under `mode`, or undefined when it may go through. */
export function workloadAccessRefusal(i: RequestInfo, method: string, mode: string): ApiStatusError | undefined {
  if (mode === 'apply' || !isWorkloadAccess(i)) return undefined;
  if (i.subresource === 'proxy' && method === 'GET') return undefined;
  const what = i.subresource === 'proxy' ? `a ${method} through ${i.resource}/proxy` : `${i.resource}/${i.subresource}`;
  return new ApiStatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden',
    message: `kwatch endpoint: ${what} is refused under --writes ${mode}: it acts on the running workload itself, which no dry run holds back (--writes apply lets it through)`,
    details: { name: i.name, kind: i.resource, ...(i.group ? { group: i.group } : {}) },
  });
}
