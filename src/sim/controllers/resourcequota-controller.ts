// The resource quota controller: each ResourceQuota's status.hard (its spec.hard) and status.used, counted over its
// namespace for what it limits (quota-usage.ts), kept current as objects come, change and go. Refusing writes over
// quota is admission's part (quota-admission.ts).
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { formatQuantity } from '../kinds/quantity.js';
import { jsonEqual } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import type { ControllerContext } from './controller-context.js';
import { namespaceUsage } from './quota-usage.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** A pod's JSON in a terminal phase (it stops counting against `pods` and compute resources). */
const finished = (json: string): boolean => json.includes('"phase":"Succeeded"') || json.includes('"phase":"Failed"');

/** status.used for one quota's hard names in a namespace. */
export function quotaUsage(store: SimStore, namespace: string, quota: SimObject): Record<string, string> {
  const used: Record<string, string> = {};
  for (const [name, q] of Object.entries(namespaceUsage(store, namespace, quota))) used[name] = formatQuantity(q);
  return used;
}

export class ResourceQuotaController {
  readonly queue: WorkQueue;
  readonly quotas: ResourceType;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((ns) => this.sync(ns), onError);
    this.quotas = ctx.store.resolve({ group: '', version: 'v1', resource: 'resourcequotas' });
  }

  /**
   * Recounts a namespace soon when its quotas change or usage is freed (a delete, a pod that finished or came back);
   * what admission already counted (creates, claim and service updates) is recounted at most once a second, as a
   * safety net: a full recount parses every pod of the namespace. Namespaces without quotas cost one lookup.
   */
  observe(change: Change, type: ResourceType): void {
    const ns = change.cur.meta.namespace;
    if (!ns) return;
    if (type === this.quotas) { this.queue.add(ns, 20); return; }
    if (this.ctx.store.storedIn(this.quotas, ns).length === 0) return;
    const freed = change.type === 'DELETED' || (type.group === '' && type.resource === 'pods' && change.prev !== undefined && finished(change.prev.json) !== finished(change.cur.json));
    this.queue.add(ns, freed ? 20 : 1000);
  }

  private sync(namespace: string): void {
    const { store } = this.ctx;
    for (const stored of store.storedIn(this.quotas, namespace)) {
      const quota = stored.obj;
      const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
      const status = { hard: { ...hard }, used: quotaUsage(store, namespace, quota) };
      if (jsonEqual(quota.status ?? {}, status)) continue;
      store.updateObject(this.quotas, { ...quota, status }, { subresource: 'status', ...writtenBy(this.quotas, CONTROLLER_MANAGER, 'status') });
    }
  }
}
