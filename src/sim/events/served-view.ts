// A resource served from another resource's storage in another shape: events.k8s.io/v1 events are the core/v1
// Events, autoscaling/v1 HPAs the autoscaling/v2 ones (one store, one resourceVersion sequence, both watches seeing
// every write), converted on the way in and out. Handlers use the view's storage type for every store call and convert bodies at the edges.
import type { SimObject } from '../api.js';
import type { ResourceRegistry, ResourceType } from '../registry.js';
import { coreToEventsV1, eventsV1Json, eventsV1ToCore } from './event-conversion.js';
import { hpaV1Json, hpaV1Object, hpaV2Object } from '../kinds/hpa-conversion.js';

export interface ServedView {
  /** The type whose collection holds the objects. */
  storage: ResourceType;
  /** A request body (served shape) as stored. */
  toStorage(obj: SimObject): SimObject;
  /** A stored object in the served shape. */
  fromStorage(obj: SimObject): SimObject;
  /** Stored JSON in the served shape. */
  json(storedJson: string): string;
}

/** The view of `type` when it is served from another type's storage; undefined for every type that stores itself. */
export function servedView(registry: ResourceRegistry, type: ResourceType): ServedView | undefined {
  if (type.group === 'autoscaling' && type.version === 'v1' && type.resource === 'horizontalpodautoscalers') return hpaV1View(registry);
  if (type.group !== 'events.k8s.io' || type.resource !== 'events') return undefined;
  const storage = registry.lookup('', 'v1', 'events');
  if (!storage) return undefined;
  return {
    storage,
    toStorage: (obj) => eventsV1ToCore(obj as unknown as Record<string, unknown>) as unknown as SimObject,
    fromStorage: (obj) => coreToEventsV1(obj as unknown as Record<string, unknown>) as unknown as SimObject,
    json: eventsV1Json,
  };
}

/** autoscaling/v1 HPAs are the autoscaling/v2 ones (kube 1.32's storage version), converted. */
function hpaV1View(registry: ResourceRegistry): ServedView | undefined {
  const storage = registry.lookup('autoscaling', 'v2', 'horizontalpodautoscalers');
  return storage && { storage, toStorage: hpaV2Object, fromStorage: hpaV1Object, json: hpaV1Json };
}
