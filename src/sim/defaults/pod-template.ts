// Pod templates inside workload kinds get the pod spec defaults (not the Pod-only ones nor admission), as kube's
// defaulting reaches every PodTemplateSpec it decodes. One entry per kind that holds spec.template.
import { defaultPodSpec } from './pod-spec.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** "group/Kind" of every served kind whose spec.template is a PodTemplateSpec. */
const KINDS_WITH_POD_TEMPLATE = new Set([
  'apps/Deployment',
  'apps/ReplicaSet',
  'apps/StatefulSet',
  'apps/DaemonSet',
  '/ReplicationController',
  'batch/Job',
]);

/** Defaults the pod template of `obj` when its kind has one; other kinds are left alone. */
export function defaultPodTemplateOf(type: { group: string; kind: string }, obj: Json): void {
  if (!KINDS_WITH_POD_TEMPLATE.has(`${type.group}/${type.kind}`) || !isObject(obj.spec) || !isObject(obj.spec.template)) return;
  const template = obj.spec.template;
  const spec = defaultPodSpec(template.spec);
  // Go's encoder writes the template's zero creationTimestamp as null (what kubectl sends back on rollout undo).
  const stamped = isObject(template.metadata) && template.metadata.creationTimestamp !== undefined;
  if (stamped && spec === template.spec) return;
  const metadata: Json = stamped ? template.metadata as Json : { ...(isObject(template.metadata) ? template.metadata : {}), creationTimestamp: null };
  obj.spec = { ...obj.spec, template: { ...template, metadata, spec } };
}
