// The resource quota controller: each ResourceQuota's status.hard (its spec.hard) and status.used, counted over its
// namespace for what it limits — object counts (pods, services, configmaps, secrets, persistentvolumeclaims,
// replicationcontrollers, resourcequotas, count/<resource>[.<group>]) and the cpu/memory requests and limits of the
// pods that are not finished. The sim does not refuse writes over quota.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { addQuantities, formatQuantity, parseQuantity, ZERO, type Quantity } from '../kinds/quantity.js';
import { jsonEqual } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import type { ControllerContext } from './controller-context.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const CORE_COUNTS = new Set(['pods', 'services', 'configmaps', 'secrets', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas']);

/** Which resource a `count/…` or core quota name counts, as group/resource. */
function countedResource(name: string): { group: string; resource: string } | undefined {
  if (CORE_COUNTS.has(name)) return { group: '', resource: name };
  const m = /^count\/([^.]+)(?:\.(.+))?$/.exec(name);
  return m ? { group: m[2] ?? '', resource: m[1] } : undefined;
}

function podTerminal(pod: SimObject): boolean {
  const phase = (pod.status as Json | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** A pod's requests or limits of cpu/memory: containers summed, the largest init container if bigger. */
function podResource(pod: SimObject, kind: 'requests' | 'limits', resource: string): Quantity {
  const spec = (pod.spec ?? {}) as Json;
  let sum = ZERO;
  for (const c of (spec.containers ?? []) as Json[]) {
    const q = parseQuantity(c.resources?.[kind]?.[resource] ?? (kind === 'requests' ? c.resources?.limits?.[resource] : undefined));
    if (q) sum = addQuantities(sum, q);
  }
  for (const c of (spec.initContainers ?? []) as Json[]) {
    const q = parseQuantity(c.resources?.[kind]?.[resource]);
    if (q && q.milli > sum.milli) sum = q;
  }
  return sum;
}

/** status.used for one quota's hard names in a namespace. */
export function quotaUsage(store: SimStore, namespace: string, hard: Record<string, unknown>): Record<string, string> {
  const used: Record<string, string> = {};
  let pods: SimObject[] | undefined;
  const livePods = (): SimObject[] => (pods ??= store.storedIn(store.resolve({ group: '', version: 'v1', resource: 'pods' }), namespace).map((p) => p.obj).filter((p) => !podTerminal(p)));
  for (const name of Object.keys(hard)) {
    const counted = countedResource(name);
    if (counted) {
      const type = store.registry.lookup(counted.group, 'v1', counted.resource);
      if (!type) continue;
      used[name] = String(counted.resource === 'pods' && counted.group === '' ? livePods().length : store.storedIn(type, namespace).length);
      continue;
    }
    const m = /^(?:(requests|limits)\.)?(cpu|memory)$/.exec(name);
    if (!m) continue;
    const kind = (m[1] ?? 'requests') as 'requests' | 'limits';
    used[name] = formatQuantity(livePods().reduce((sum, p) => addQuantities(sum, podResource(p, kind, m[2])), ZERO));
  }
  return used;
}

export class ResourceQuotaController {
  readonly queue: WorkQueue;
  readonly quotas: ResourceType;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((ns) => this.sync(ns), onError);
    this.quotas = ctx.store.resolve({ group: '', version: 'v1', resource: 'resourcequotas' });
  }

  /** Any namespaced change may move a quota of its namespace; namespaces without quotas cost one lookup. */
  observe(change: Change, type: ResourceType): void {
    const ns = change.cur.meta.namespace;
    if (!ns) return;
    if (type === this.quotas || this.ctx.store.storedIn(this.quotas, ns).length > 0) this.queue.add(ns, 20);
  }

  private sync(namespace: string): void {
    const { store } = this.ctx;
    for (const stored of store.storedIn(this.quotas, namespace)) {
      const quota = stored.obj;
      const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
      const status = { hard: { ...hard }, used: quotaUsage(store, namespace, hard) };
      if (jsonEqual(quota.status ?? {}, status)) continue;
      store.updateObject(this.quotas, { ...quota, status }, { subresource: 'status', ...writtenBy(this.quotas, CONTROLLER_MANAGER, 'status') });
    }
  }
}
