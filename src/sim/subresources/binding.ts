// POST pods/{name}/binding (core/v1 Binding), as kube 1.32's BindingREST: sets spec.nodeName and PodScheduled=True on
// a pod no one has bound yet (409 when it is bound already), so a custom scheduler can place pods on the sim.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { kubeTime } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import { sendJson } from '../respond.js';
import type { ServerContext } from '../server-context.js';
import { badRequest, conflict, internalError, invalid, notFound, type FieldError } from '../status.js';
import { CREATED_STATUS, readSubresourceBody } from './request-body.js';

type Json = Record<string, any>;

export async function handleBinding(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, pods: ResourceType, namespace: string, name: string, dryRun: boolean): Promise<void> {
  const binding = await readSubresourceBody(req, 'Binding');
  const meta = (binding.metadata ?? {}) as Json;
  if (meta.name !== undefined && meta.name !== name) throw badRequest('name in URL does not match name in Binding object');
  const target = (binding.target ?? {}) as Json;
  const errs: FieldError[] = [];
  if (target.kind && target.kind !== 'Node') errs.push({ field: 'target.kind', type: 'Unsupported value', value: target.kind, detail: 'supported values: "Node", "<empty>"' });
  if (!target.name) errs.push({ field: 'target.name', type: 'Required value', detail: '' });
  if (errs.length) throw invalid('Binding', '', name, errs);
  const { store } = ctx;
  const pod = store.getStored(pods, namespace, name)?.obj;
  if (!pod) throw notFound('pods', '', name);
  if (pod.metadata.deletionTimestamp !== undefined) throw internalError(`pod ${name} is being deleted, cannot be assigned to a host`);
  const spec = (pod.spec ?? {}) as Json;
  if (spec.nodeName) throw conflict('pods/binding', '', name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
  if (meta.uid && meta.uid !== pod.metadata.uid) throw conflict('pods', '', name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${pod.metadata.uid}`);
  if (!dryRun) {
    const status = (pod.status ?? {}) as Json;
    const conditions = ((status.conditions ?? []) as Json[]).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: kubeTime(new Date()) });
    const annotations = meta.annotations ? { ...(pod.metadata.annotations ?? {}), ...meta.annotations } : pod.metadata.annotations;
    store.updateObject(pods, { ...pod, metadata: { ...pod.metadata, annotations }, spec: { ...spec, nodeName: target.name }, status: { ...status, conditions } });
  }
  sendJson(res, 201, CREATED_STATUS);
}
