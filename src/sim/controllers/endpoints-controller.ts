// The endpoints and endpointslice controllers: for each Service with a selector, an Endpoints object of the same name
// (ready pods under addresses, the others under notReadyAddresses, terminating pods left out) and one EndpointSlice
// <service>-<5 random chars> (every pod with an IP, with ready/serving/terminating conditions), owned by the Service.
// Ports are the Service's, with named target ports resolved against each pod's containers.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { labelSelectorFromObject } from '../label-selector.js';
import { jsonEqual } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import { splitKey, type ControllerContext } from './controller-context.js';
import { controllerRefTo } from './owner-references.js';
import { isReady } from './replicaset-controller.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'endpointslice-controller.k8s.io';

/** A target port as a number for this pod: numbers as they are, names looked up in the pod's container ports. */
function targetPort(port: Json, pod: SimObject): number | undefined {
  const t = port.targetPort ?? port.port;
  if (typeof t === 'number') return t;
  for (const c of (((pod.spec as Json | undefined)?.containers ?? []) as Json[])) {
    for (const p of (c.ports ?? []) as Json[]) if (p.name === t && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP')) return p.containerPort as number;
  }
  return undefined;
}

const podIP = (pod: SimObject): string | undefined => (pod.status as Json | undefined)?.podIP as string | undefined;
const targetRef = (pod: SimObject): Json => ({ kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid });

export class EndpointsController {
  readonly queue: WorkQueue;
  private readonly services: ResourceType;
  private readonly endpoints: ResourceType;
  private readonly slices: ResourceType;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
    const r = (group: string, resource: string): ResourceType => ctx.store.resolve({ group, version: 'v1', resource });
    this.services = r('', 'services');
    this.endpoints = r('', 'endpoints');
    this.slices = r('discovery.k8s.io', 'endpointslices');
  }

  observeService(change: Change): void {
    this.queue.add(change.key);
  }

  /** A pod changed: the services of its namespace with a selector look again (the sync finds what changed). */
  observePod(change: Change): void {
    const ns = change.cur.meta.namespace;
    for (const s of this.ctx.store.storedIn(this.services, ns)) {
      if (s.json.includes('"selector"')) this.queue.add(`${ns}/${s.meta.name}`);
    }
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const { store, types } = this.ctx;
    const service = store.getStored(this.services, namespace, name)?.obj;
    const spec = (service?.spec ?? {}) as Json;
    const selectorMap = spec.selector as Record<string, string> | undefined;
    if (!service || !selectorMap || Object.keys(selectorMap).length === 0) {
      // No service, or one without a selector: its Endpoints are the user's (kube deletes them only for a deleted service).
      if (!service && store.getStored(this.endpoints, namespace, name)) store.deleteObject(this.endpoints, namespace, name);
      return;
    }
    const selector = labelSelectorFromObject({ matchLabels: selectorMap });
    const pods = store.storedIn(types.pods, namespace)
      .filter((p) => selector.matches(p.meta.labels as Record<string, string> | undefined) && p.meta.fields['status.podIP'])
      .map((p) => p.obj)
      .filter((p) => !['Succeeded', 'Failed'].includes(String((p.status as Json | undefined)?.phase)));
    const ports = ((spec.ports ?? []) as Json[]);
    this.writeEndpoints(service, pods, ports);
    this.writeSlice(service, pods, ports);
  }

  private writeEndpoints(service: SimObject, pods: SimObject[], ports: Json[]): void {
    const { store } = this.ctx;
    const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
    const address = (p: SimObject): Json => ({ ip: podIP(p), ...((p.spec as Json).nodeName ? { nodeName: (p.spec as Json).nodeName } : {}), targetRef: targetRef(p) });
    const ready = live.filter(isReady).map(address);
    const notReady = live.filter((p) => !isReady(p)).map(address);
    const subsetPorts = ports.map((sp) => ({ ...(sp.name ? { name: sp.name } : {}), port: live.length ? targetPort(sp, live[0]) ?? sp.port : sp.port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) }));
    const subsets = ready.length || notReady.length
      ? [{ ...(ready.length ? { addresses: ready } : {}), ...(notReady.length ? { notReadyAddresses: notReady } : {}), ...(subsetPorts.length ? { ports: subsetPorts } : {}) }]
      : undefined;
    const labels = service.metadata.labels;
    const existing = store.getStored(this.endpoints, service.metadata.namespace, service.metadata.name!)?.obj;
    if (!existing) {
      store.createObject(this.endpoints, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: service.metadata.name, namespace: service.metadata.namespace, ...(labels ? { labels: { ...labels } } : {}) }, ...(subsets ? { subsets } : {}) }, writtenBy(this.endpoints, CONTROLLER_MANAGER));
      return;
    }
    if (jsonEqual(existing.subsets ?? null, subsets ?? null) && jsonEqual(existing.metadata.labels ?? null, labels ?? null)) return;
    const next: SimObject = { ...existing, metadata: { ...existing.metadata, labels: labels ? { ...labels } : undefined } };
    if (subsets) next.subsets = subsets; else delete next.subsets;
    store.updateObject(this.endpoints, next, writtenBy(this.endpoints, CONTROLLER_MANAGER));
  }

  private writeSlice(service: SimObject, pods: SimObject[], ports: Json[]): void {
    const { store } = this.ctx;
    const endpoints = pods.map((p) => {
      const terminating = p.metadata.deletionTimestamp !== undefined;
      const ready = isReady(p);
      const nodeName = (p.spec as Json).nodeName;
      return { addresses: [podIP(p)], conditions: { ready: ready && !terminating, serving: ready, terminating }, targetRef: targetRef(p), ...(nodeName ? { nodeName } : {}) };
    });
    const slicePorts = ports.map((sp) => ({ name: sp.name ?? '', port: pods.length ? targetPort(sp, pods[0]) ?? sp.port : sp.port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) }));
    const labels = { ...(service.metadata.labels ?? {}), [MANAGED_BY_LABEL]: MANAGED_BY, [SERVICE_NAME_LABEL]: service.metadata.name! };
    const mine = store.storedIn(this.slices, service.metadata.namespace).filter((s) => (s.meta.labels as Record<string, string> | undefined)?.[SERVICE_NAME_LABEL] === service.metadata.name && (s.meta.labels as Record<string, string>)[MANAGED_BY_LABEL] === MANAGED_BY);
    const body = { addressType: 'IPv4', endpoints, ports: slicePorts };
    if (mine.length === 0) {
      if (!this.ctx.budgets.endpointSlice.allows()) return;
      store.createObject(this.slices, {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
        metadata: { generateName: `${service.metadata.name}-`, namespace: service.metadata.namespace, labels, ownerReferences: [controllerRefTo(service, this.services)] },
        ...body,
      }, writtenBy(this.slices, CONTROLLER_MANAGER));
      this.ctx.budgets.endpointSlice.spend();
      return;
    }
    const slice = mine[0].obj;
    if (jsonEqual(slice.endpoints ?? [], endpoints) && jsonEqual(slice.ports ?? [], slicePorts) && jsonEqual(slice.metadata.labels, labels)) return;
    store.updateObject(this.slices, { ...slice, metadata: { ...slice.metadata, labels }, ...body }, writtenBy(this.slices, CONTROLLER_MANAGER));
  }
}
