// What a reconciler's create would make, in a few lines under its `write verb=create` record: kind and
// name, labels, owner, and the paths of the fields it sets (values stay out: the request in -o json has them).
import type { KubeObject } from '../informer/types.js';

const MAX_FIELDS = 12;

export function createdEssentials(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  const name = m.name ?? `${m.generateName ?? ''}<generated>`;
  const lines = [`+ ${obj.kind ?? '?'} ${m.namespace ? `${m.namespace}/` : ''}${name}`];
  const labels = Object.entries(m.labels ?? {});
  if (labels.length > 0) lines.push(`  labels: ${labels.map(([k, v]) => `${k}=${v}`).join(',')}`);
  for (const o of m.ownerReferences ?? []) lines.push(`  owner: ${o.kind} ${o.name}${o.controller ? ' (controller)' : ''}`);
  const fields = setPaths(obj);
  if (fields.length > 0) lines.push(`  sets: ${fields.slice(0, MAX_FIELDS).join(', ')}${fields.length > MAX_FIELDS ? `, … ${fields.length - MAX_FIELDS} more` : ''}`);
  return lines.join('\n');
}

/** Leaf paths outside apiVersion/kind/metadata, two levels under the top (`spec.replicas`, `data.key`). */
function setPaths(obj: KubeObject): string[] {
  const out: string[] = [];
  for (const [top, v] of Object.entries(obj)) {
    if (top === 'apiVersion' || top === 'kind' || top === 'metadata') continue;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      out.push(top);
      continue;
    }
    const keys = Object.keys(v);
    if (keys.length === 0) out.push(top);
    for (const k of keys) out.push(`${top}.${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}`);
  }
  return out;
}
