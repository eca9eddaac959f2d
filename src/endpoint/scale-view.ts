// The autoscaling/v1 Scale the target serves at …/NAME/scale for a parent object the client was sent: what a write to
// /scale is diffed against (the parent itself would show `kind: Deployment → Scale` and its whole template as removed).
// kube builds it per kind: apps/v1 Deployment, ReplicaSet and StatefulSet (pkg/registry/apps/*/storage/storage.go,
// scaleFromDeployment and friends: status.selector = metav1.LabelSelectorAsSelector(spec.selector).String()), ReplicationController
// (pkg/registry/core/replicationcontroller/storage: labels.SelectorFromSet(spec.selector)), and for custom resources
// the CRD's specReplicasPath/statusReplicasPath/labelSelectorPath (apiextensions-apiserver registry/customresource).

/** Kinds whose Scale kube builds from spec.replicas, status.replicas and a metav1.LabelSelector at spec.selector. */
const LABEL_SELECTOR_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet']);

interface Requirement { key?: unknown; operator?: unknown; values?: unknown }

/**
 * `parent` as its Scale. `answer` (the Scale the write was answered with) supplies what the parent alone cannot say
 * for a custom resource, whose paths live in its CRD: its status.selector, which no write to /scale can change.
 */
export function scaleView(parent: Record<string, unknown>, answer: Record<string, unknown> | undefined): Record<string, unknown> {
  const meta = (parent.metadata ?? {}) as Record<string, unknown>;
  const spec = (parent.spec ?? {}) as { replicas?: unknown; selector?: unknown };
  const status = (parent.status ?? {}) as { replicas?: unknown };
  const kind = typeof parent.kind === 'string' ? parent.kind : undefined;
  let selector: string | undefined;
  if (kind !== undefined && LABEL_SELECTOR_KINDS.has(kind)) selector = formatLabelSelector(spec.selector);
  else if (kind === 'ReplicationController') selector = formatLabelSet(spec.selector);
  else selector = ((answer?.status ?? {}) as { selector?: unknown }).selector as string | undefined;
  const pick = (k: string) => (meta[k] !== undefined ? { [k]: meta[k] } : {});
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { ...pick('name'), ...pick('namespace'), ...pick('uid'), ...pick('resourceVersion'), ...pick('creationTimestamp') },
    spec: typeof spec.replicas === 'number' ? { replicas: spec.replicas } : {},
    status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, ...(selector !== undefined ? { selector } : {}) },
  };
}

/** metav1.LabelSelectorAsSelector(sel).String(): requirements sorted by key; an empty selector is "" (omitted, as omitempty does). */
function formatLabelSelector(sel: unknown): string | undefined {
  if (sel === null || typeof sel !== 'object') return undefined;
  const s = sel as { matchLabels?: Record<string, unknown>; matchExpressions?: Requirement[] };
  const parts: [string, string][] = Object.entries(s.matchLabels ?? {}).map(([k, v]) => [k, `${k}=${String(v)}`]);
  for (const r of s.matchExpressions ?? []) {
    const key = String(r.key ?? '');
    const values = Array.isArray(r.values) ? r.values.map(String).sort() : [];
    switch (r.operator) {
      case 'In': parts.push([key, `${key} in (${values.join(',')})`]); break;
      case 'NotIn': parts.push([key, `${key} notin (${values.join(',')})`]); break;
      case 'Exists': parts.push([key, key]); break;
      case 'DoesNotExist': parts.push([key, `!${key}`]); break;
      // kube fails to build the Scale at all; the answer will say so.
      default: return undefined;
    }
  }
  const text = parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((p) => p[1]).join(',');
  return text || undefined;
}

/** labels.SelectorFromSet(map).String(): `k=v` sorted by key (empty when the map is). */
function formatLabelSet(sel: unknown): string | undefined {
  if (sel === null || typeof sel !== 'object') return undefined;
  return Object.keys(sel).sort().map((k) => `${k}=${String((sel as Record<string, unknown>)[k])}`).join(',') || undefined;
}
