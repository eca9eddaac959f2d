// `reconcile --exec --from-recording FILE`: a recording served to a controller process as its cluster. An embedded sim,
// empty but for the system namespaces, is seeded with the recording's first lists and then follows its events at the
// recording's pace (`--speed N` times faster), each resource replayed by a reflector writing straight into the sim's
// store. The endpoint then treats that sim as its target: reads, discovery and OpenAPI come from it, and every write
// mode works against it (intercept and server-dry-run as dryRun=All, overlay in a fork of it, apply into it).
import { Reflector } from '../informer/reflector.js';
import { RecordedListerWatcher } from '../informer/recording/recorded-lister-watcher.js';
import type { Recording } from '../informer/recording/recording-reader.js';
import { buildTimeline } from '../informer/recording/recording-timeline.js';
import { VirtualClock } from '../informer/recording/virtual-clock.js';
import { driveVirtualTime } from '../informer/recording/virtual-time-driver.js';
import type { KubeObject } from '../informer/types.js';
import type { ResourceType } from '../sim/registry.js';
import { startSimServer, type SimServer } from '../sim/server.js';
import { MirrorSink } from './mirror-sink.js';

export interface RecordingCluster {
  /** The sim serving the recording (the endpoint's target). */
  url: string;
  /** Resolves once every resource's first recorded list is in the sim (the state the controller starts from). */
  seeded: Promise<void>;
  /** Resolves true when every resource has been played to the end of the recording (false when closed before). */
  played: Promise<boolean>;
  close(): Promise<void>;
}

/** How long after the last recorded entry the replay keeps the clock going (watch ends, relists) before it stops. */
const TAIL_MS = 60_000;

export async function startRecordingCluster(recording: Recording, o: { speed: number; host?: string }): Promise<RecordingCluster> {
  const sim = await startSimServer({ port: 0, host: o.host, controllers: false });
  const stop = new AbortController();
  const clock = new VirtualClock(recording.startEpoch + recording.firstT - 1);
  let applied = 0;
  const namespaces = new Set<string>();
  // A resource the recording holds no list or watch of (a kind a recorded controller only wrote) is served empty.
  const feeds = recording.header.resources.flatMap((r, index) => {
    const type = servedType(sim, r);
    const timeline = buildTimeline(recording.entriesOf(index), index);
    if (timeline.op(0) === undefined) return [];
    const lw = new RecordedListerWatcher({ timeline, clock, startEpoch: recording.startEpoch });
    let listed!: () => void;
    const seeded = new Promise<void>((resolve) => (listed = resolve));
    const sink = new MirrorSink({
      put: (obj) => {
        applied++;
        if (type.namespaced) ensureNamespace(sim, namespaces, String(obj.metadata?.namespace ?? 'default'));
        // Items of a recorded list page carry no kind (a typed list's items never do): the sim serves them whole.
        sim.mirror.putMirrored(type, (obj.kind ? obj : { ...obj, apiVersion: type.group ? `${type.group}/${type.version}` : type.version, kind: type.kind }) as never);
      },
      remove: (obj: KubeObject) => {
        applied++;
        sim.mirror.deleteMirrored(type, type.namespaced ? String(obj.metadata?.namespace ?? '') : undefined, String(obj.metadata?.name ?? ''));
      },
      synced: () => listed(),
    });
    const reflector = new Reflector({ listerWatcher: lw, store: sink, name: `recording ${r.resource}`, clock });
    // A resource whose recording ends in an error simply stops changing: the sim keeps what it had.
    const running = reflector.run(stop.signal).catch(() => listed());
    return [{ lw, seeded, running }];
  });
  const played = driveVirtualTime({
    clock,
    progress: () => applied,
    signal: stop.signal,
    speed: o.speed,
    horizon: recording.startEpoch + recording.lastT + TAIL_MS,
    done: () => (feeds.every((f) => f.lw.exhausted) ? 'end' : undefined),
  }).then((reason) => reason === 'end');
  return {
    url: sim.url,
    seeded: Promise.race([Promise.all(feeds.map((f) => f.seeded)).then(() => undefined), played.then(() => undefined)]),
    played,
    close: async () => {
      stop.abort();
      await Promise.all(feeds.map((f) => f.running));
      await sim.close();
    },
  };
}

/** The sim's own type for a recorded resource, or a schemaless one with the recording's names (any CRD). */
function servedType(sim: SimServer, r: Recording['header']['resources'][number]): ResourceType {
  const registry = sim.mirror.registry;
  const known = registry.lookup(r.group, r.version, r.resource);
  if (known) return known;
  const crd = `kwatch-recording:${r.group}/${r.version}`;
  const type: ResourceType = {
    group: r.group, version: r.version, resource: r.resource, singular: r.kind.toLowerCase(), kind: r.kind, listKind: `${r.kind}List`, namespaced: r.namespaced,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'status', kind: r.kind, verbs: ['get', 'patch', 'update'] }], hasStatusSubresource: true, crd,
  };
  registry.addCrdTypes(crd, [type]);
  return type;
}

/** A recording of pods alone still needs their namespaces to exist, or the controller's creates there get 404. */
function ensureNamespace(sim: SimServer, seen: Set<string>, name: string): void {
  if (seen.has(name)) return;
  seen.add(name);
  const namespaces = sim.mirror.registry.lookup('', 'v1', 'namespaces')!;
  if (!sim.api.get({ group: '', version: 'v1', resource: 'namespaces' }, undefined, name)) sim.mirror.putMirrored(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } } as never);
}
