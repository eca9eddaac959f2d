// core/v1 Events the controllers write, as kube's event recorders do (what `kubectl describe` and `get events` show).
import type { SimObject } from '../api.js';
import { kubeTime } from '../object-meta.js';
import { groupVersion, type ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { eventObject } from '../workload-objects.js';
import { eventManager, writtenBy } from './writer-fields.js';

/** Controller Events kept at once; the oldest go first (kube expires them after an hour instead). */
const EVENT_CAP = 1000;

export interface EventSource {
  component: string;
  /** The node, for kubelet events. */
  host?: string;
}

export class EventRecorder {
  private readonly written: { namespace: string; name: string }[] = [];
  private seq = 0;

  constructor(private readonly store: SimStore) {}

  /** Writes one Event about `obj`; never throws (an event that cannot be written is dropped, as in kube). */
  record(obj: SimObject, type: ResourceType, kind: 'Normal' | 'Warning', reason: string, message: string, source: EventSource, fieldPath?: string): void {
    const events = this.store.registry.lookup('', 'v1', 'events');
    if (!events) return;
    const now = Date.now();
    const namespace = obj.metadata.namespace ?? 'default';
    // kube names events "<object>.<unix nanoseconds in hex>"; the counter keeps names unique within a millisecond.
    const name = `${obj.metadata.name}.${(BigInt(now) * 1_000_000n + BigInt(++this.seq % 1_000_000)).toString(16)}`;
    const involved = {
      kind: type.kind, apiVersion: groupVersion(type), namespace: obj.metadata.namespace ?? '', name: obj.metadata.name!,
      uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, ...(fieldPath ? { fieldPath } : {}),
    };
    if (!involved.namespace) delete (involved as { namespace?: string }).namespace;
    try {
      this.store.createObject(events, eventObject({ namespace, name, involved: involved as never, reason, message, component: source.component, host: source.host, time: kubeTime(new Date(now)), type: kind }), writtenBy(events, eventManager(source.component)));
    } catch {
      return;
    }
    this.written.push({ namespace, name });
    while (this.written.length > EVENT_CAP) {
      const old = this.written.shift()!;
      try { this.store.deleteStored(events, old.namespace, old.name); } catch { /* already gone */ }
    }
  }
}
