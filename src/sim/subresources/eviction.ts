// POST pods/{name}/eviction (policy/v1 Eviction), as kube 1.32's EvictionREST: a pod that is finished, pending or
// already being deleted goes at once; otherwise the one PodDisruptionBudget that selects it must allow a disruption
// (429 "Cannot evict pod as it would violate the pod's disruption budget." when it does not), which the eviction
// spends (disruptionsAllowed - 1, the pod listed in disruptedPods) before the pod is deleted gracefully.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimApiError, type SimObject } from '../api.js';
import { pdbSelector } from '../controllers/disruption-controller.js';
import type { DeleteRequest } from '../controllers/graceful-delete.js';
import { isReady } from '../controllers/replicaset-controller.js';
import { kubeTime } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import { sendJson } from '../respond.js';
import type { ServerContext } from '../server-context.js';
import { badRequest, notFound } from '../status.js';
import { CREATED_STATUS, readSubresourceBody } from './request-body.js';

type Json = Record<string, any>;

const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooManyRequests(cause: string): SimApiError {
  return new SimApiError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: VIOLATION, reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: cause }] }, code: 429,
  });
}

/** canIgnorePDB: finished, never scheduled to run, or already on its way out. */
function ignoresBudgets(pod: SimObject): boolean {
  const phase = (pod.status as Json | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined;
}

export async function handleEviction(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, pods: ResourceType, namespace: string, name: string, dryRunQuery: boolean): Promise<void> {
  const eviction = await readSubresourceBody(req, 'Eviction');
  if (eviction.metadata?.name !== undefined && eviction.metadata.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const options = (eviction.deleteOptions ?? {}) as Json;
  const dryRun = dryRunQuery || (Array.isArray(options.dryRun) && options.dryRun.includes('All'));
  const { store } = ctx;
  const pod = store.getStored(pods, namespace, name)?.obj;
  if (!pod) throw notFound('pods', '', name);
  const deleteRequest: DeleteRequest = {
    gracePeriodSeconds: options.gracePeriodSeconds === undefined || options.gracePeriodSeconds === null ? undefined : Number(options.gracePeriodSeconds),
    ...(options.preconditions ? { preconditions: options.preconditions } : {}), dryRun,
  };
  if (!ignoresBudgets(pod)) spendBudget(ctx, pod, dryRun);
  if (ctx.deletes) ctx.deletes.delete(pods, namespace, name, deleteRequest);
  else store.deleteStored(pods, namespace, name, { dryRun, preconditions: deleteRequest.preconditions });
  sendJson(res, 201, CREATED_STATUS);
}

/** Checks the pod's budget and records the disruption; throws the 429/500 kube answers when it may not go. */
function spendBudget(ctx: ServerContext, pod: SimObject, dryRun: boolean): void {
  const { store } = ctx;
  const budgets = store.registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!budgets) return;
  const matching = store.storedIn(budgets, pod.metadata.namespace).map((b) => b.obj).filter((b) => {
    const spec = (b.spec ?? {}) as Json;
    // policy/v1: a missing selector selects nothing, an empty one every pod.
    if (spec.selector === undefined || spec.selector === null) return false;
    return pdbSelector(b)?.matches(pod.metadata.labels) ?? false;
  });
  if (matching.length === 0) return;
  // kube answers a bare Status (code 500, no reason) here, not an InternalError.
  if (matching.length > 1) {
    const bare = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 };
    throw new SimApiError(bare as SimApiError['status']);
  }
  const pdb = matching[0];
  const status = (pdb.status ?? {}) as Json;
  if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw tooManyRequests(`The disruption budget ${pdb.metadata.name} is still being processed by the server.`);
  // IfHealthyBudget (the default policy): an unready pod may go while the budget is met.
  if (!isReady(pod) && (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0)) return;
  const allowed = Number(status.disruptionsAllowed ?? 0);
  if (allowed < 0) throw new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pdb disruptions allowed is negative', reason: 'Forbidden', code: 403 });
  if (allowed === 0) throw tooManyRequests(`The disruption budget ${pdb.metadata.name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`);
  if (dryRun) return;
  const disruptedPods = { ...(status.disruptedPods ?? {}), [pod.metadata.name!]: kubeTime(new Date()) };
  const next = { ...status, disruptionsAllowed: allowed - 1, disruptedPods };
  store.updateObject(budgets, { ...pdb, status: next }, { subresource: 'status' });
}

