// The ResourceCatalog of `kwatch reconcile --from-recording`: the resources a recording holds, each
// listed and watched from the recording on a virtual clock, so a run is the same every time.
import { RecordedListerWatcher } from '../informer/recording/recorded-lister-watcher.js';
import type { ReplayFaults } from '../informer/recording/replay-faults.js';
import type { Recording } from '../informer/recording/recording-reader.js';
import { buildTimeline } from '../informer/recording/recording-timeline.js';
import type { ListerWatcher } from '../informer/types.js';
import type { VirtualClock } from '../informer/recording/virtual-clock.js';
import { CatalogError, groupOf, type ResourceCatalog, type ResourceInfo } from './catalog.js';

export class RecordingCatalog implements ResourceCatalog {
  private readonly resources: { info: ResourceInfo; index: number }[];
  private readonly lws: RecordedListerWatcher[] = [];

  constructor(
    private readonly recording: Recording,
    private readonly clock: VirtualClock,
    private readonly path: string,
    /** --inject: shared by every resource's stream, as `replay` shares them. */
    private readonly faults?: ReplayFaults,
  ) {
    this.resources = recording.header.resources.map((r, index) => ({
      index,
      info: { name: r.group ? `${r.resource}.${r.group}` : r.resource, group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced },
    }));
  }

  async resolve(name: string): Promise<ResourceInfo> {
    const n = name.toLowerCase();
    const hit = this.resources.find(({ info }) => info.name === n || info.resource === n || info.kind.toLowerCase() === n || `${info.resource}.${info.version}.${info.group}` === n);
    if (hit) return hit.info;
    const held = this.resources.map((r) => r.info.name).join(', ');
    throw new CatalogError(`${this.path} holds no "${name}" (it recorded ${held}): record it too, e.g. kwatch events ${held},${name} --record FILE`);
  }

  /** Writes are only shown or overlaid offline, so a kind the recording lacks gets a resource named after it. */
  async resolveKind(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const group = groupOf(apiVersion);
    const hit = this.resources.find(({ info }) => info.kind === kind && info.group === group);
    if (hit) return hit.info;
    const resource = guessResource(kind);
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    return { name: group ? `${resource}.${group}` : resource, group, version, resource, kind, namespaced: !CLUSTER_SCOPED.has(kind) };
  }

  listerWatcher(info: ResourceInfo): ListerWatcher {
    const r = this.resources.find((x) => x.info === info)!;
    const lw = new RecordedListerWatcher({ timeline: buildTimeline(this.recording.entriesOf(r.index), r.index), clock: this.clock, startEpoch: this.recording.startEpoch, faults: this.faults });
    this.lws.push(lw);
    return lw;
  }

  /** Every resource read so far has been played to its end. */
  exhausted(): boolean {
    return this.lws.every((lw) => lw.exhausted);
  }
}

/**
 * kube's own guess of a kind's resource (apimachinery meta/restmapper.go, UnsafeGuessKindToResource): NetworkPolicy
 * is networkpolicies, Ingress ingresses, Gateway gateways, Endpoints endpoints.
 */
function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith('endpoints')) return singular;
  if (/(s|z|ch|sh|x)$/.test(singular)) return `${singular}es`;
  if (singular.endsWith('y') && !/[aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

const CLUSTER_SCOPED = new Set(['Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'StorageClass', 'PriorityClass']);
