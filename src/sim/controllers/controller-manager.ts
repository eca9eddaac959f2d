// Runs the sim's stand-ins for kube-controller-manager, the scheduler and the kubelet inside the server: each one
// follows the store's commits and acts on timers, through the store's normal write path.
import type { SimApi, SimObject, SimResourceRef } from '../api.js';
import { systemClock, type SimClock } from '../clock.js';
import type { Change } from '../history.js';
import { resourceId, type ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import type { ControllerContext, ControllerTimings } from './controller-context.js';
import { budgetState, creationBudgets, DEFAULT_MAX_OBJECTS } from './creation-budget.js';
import { DeploymentController } from './deployment-controller.js';
import { EventRecorder } from './event-recorder.js';
import { GarbageCollector } from './garbage-collector.js';
import { deleteObject, type DeleteOutcome, type DeleteRequest } from './graceful-delete.js';
import { CronJobController } from './cronjob-controller.js';
import { JobController } from './job-controller.js';
import { Kubelet } from './kubelet.js';
import { admitCreate, deleteNamespace, isNamespaceType, NamespaceController } from './namespace-controller.js';
import { OwnerIndex } from './owner-index.js';
import { ownerUidsInJson } from './owner-references.js';
import { PodGC } from './pod-gc.js';
import { ReplicaSetController } from './replicaset-controller.js';
import { Scheduler } from './scheduler.js';
import { DaemonSetController } from './daemonset-controller.js';
import { DisruptionController } from './disruption-controller.js';
import { EndpointsController } from './endpoints-controller.js';
import { ResourceQuotaController } from './resourcequota-controller.js';
import { ServiceAccountsController } from './serviceaccounts-controller.js';
import { APIServiceController } from './apiservice-controller.js';
import { StatefulSetController } from './statefulset-controller.js';
import { PersistentVolumeController } from './persistentvolume-controller.js';
import { QuotaAdmission } from './quota-admission.js';
import { admitDefaultStorageClass } from './default-storage-class.js';

export interface ControllerOptions {
  /** Real seconds per second of pod grace period (default 0.05: a 30 s grace period ends after 1.5 s). */
  graceScale?: number;
  /** How long a pod shows ContainerCreating before it runs (default 1000 ms). */
  podStartMs?: number;
  /** How long a Job's pod runs before it completes (default 1000 ms). */
  jobPodRunMs?: number;
  /** Objects each controller may create over the sim's lifetime (default 10,000); past it, it logs once and stops. */
  maxObjects?: number;
  /** Where that line goes (default stderr). */
  log?: (line: string) => void;
  /** The cluster CA (PEM) the kube-root-ca.crt ConfigMaps publish; a placeholder when the sim serves plain HTTP. */
  caPem?: string;
  /** The clock CronJob schedules and the quota controller's resync follow (default the system clock; the server passes its own). */
  clock?: SimClock;
}

const PODS = '/v1/pods';
const NODES = '/v1/nodes';
const REPLICASETS = 'apps/v1/replicasets';
const DEPLOYMENTS = 'apps/v1/deployments';
const NAMESPACES = '/v1/namespaces';
const JOBS = 'batch/v1/jobs';
const CRONJOBS = 'batch/v1/cronjobs';
const STATEFULSETS = 'apps/v1/statefulsets';
const DAEMONSETS = 'apps/v1/daemonsets';
const CONTROLLERREVISIONS = 'apps/v1/controllerrevisions';
const SERVICES = '/v1/services';
const PDBS = 'policy/v1/poddisruptionbudgets';
const SERVICEACCOUNTS = '/v1/serviceaccounts';
const CONFIGMAPS = '/v1/configmaps';
const CRDS = 'apiextensions.k8s.io/v1/customresourcedefinitions';
const CLAIMS = '/v1/persistentvolumeclaims';
const VOLUMES = '/v1/persistentvolumes';
const STORAGE_CLASSES = 'storage.k8s.io/v1/storageclasses';

export class ControllerManager {
  private readonly ctx: ControllerContext;
  private readonly deployments: DeploymentController;
  private readonly replicaSets: ReplicaSetController;
  private readonly scheduler: Scheduler;
  private readonly kubelet: Kubelet;
  private readonly gc: GarbageCollector;
  private readonly namespaces: NamespaceController;
  private readonly podGC: PodGC;
  private readonly jobs: JobController;
  private readonly cronJobs: CronJobController;
  private readonly statefulSets: StatefulSetController;
  private readonly daemonSets: DaemonSetController;
  private readonly endpoints: EndpointsController;
  private readonly disruption: DisruptionController;
  private readonly quotas: ResourceQuotaController;
  private readonly serviceAccounts: ServiceAccountsController;
  private readonly apiServices: APIServiceController;
  private readonly volumes: PersistentVolumeController;
  private readonly quotaAdmission: QuotaAdmission;
  /** Deployments and ReplicaSets the workload generator created: it drives them (and their pods) itself. */
  private readonly generatorUids = new Set<string>();
  private unsubscribe: (() => void) | undefined;
  /** Syncs that threw (they are retried with backoff); the last error, for debugging. */
  errors = 0;
  lastError: string | undefined;

  constructor(private readonly store: SimStore, opts: ControllerOptions = {}) {
    const type = (group: string, resource: string): ResourceType => store.resolve({ group, version: 'v1', resource });
    this.ctx = {
      store,
      events: new EventRecorder(store),
      owners: new OwnerIndex(store),
      budgets: creationBudgets(opts.maxObjects ?? DEFAULT_MAX_OBJECTS, opts.log ?? ((line) => process.stderr.write(line + '\n'))),
      timings: { graceScale: opts.graceScale ?? 0.05, podStartMs: opts.podStartMs ?? 1000, jobPodRunMs: opts.jobPodRunMs ?? 1000 } satisfies ControllerTimings,
      types: { pods: type('', 'pods'), nodes: type('', 'nodes'), replicaSets: type('apps', 'replicasets'), deployments: type('apps', 'deployments') },
      generatorOwns: (uid) => this.generatorUids.has(uid),
    };
    const onError = (key: string, err: unknown): void => {
      this.errors++;
      this.lastError = `${key}: ${err instanceof Error ? err.message : String(err)}`;
    };
    this.deployments = new DeploymentController(this.ctx, onError);
    this.replicaSets = new ReplicaSetController(this.ctx, onError);
    this.scheduler = new Scheduler(this.ctx, onError);
    this.kubelet = new Kubelet(this.ctx, onError);
    this.gc = new GarbageCollector(this.ctx, onError);
    this.namespaces = new NamespaceController(this.ctx, onError);
    this.podGC = new PodGC(this.ctx, onError);
    this.jobs = new JobController(this.ctx, type('batch', 'jobs'), onError);
    this.cronJobs = new CronJobController(this.ctx, opts.clock ?? systemClock, onError);
    this.statefulSets = new StatefulSetController(this.ctx, onError);
    this.daemonSets = new DaemonSetController(this.ctx, onError);
    this.endpoints = new EndpointsController(this.ctx, onError);
    this.disruption = new DisruptionController(this.ctx, onError);
    this.quotas = new ResourceQuotaController(store, onError, opts.clock ?? systemClock);
    this.serviceAccounts = new ServiceAccountsController(this.ctx, opts.caPem, onError);
    this.apiServices = new APIServiceController(this.ctx, onError);
    this.volumes = new PersistentVolumeController(this.ctx, onError);
    this.quotaAdmission = new QuotaAdmission(store);
  }

  /**
   * The SimApi to hand the workload generator: the same store, but every Deployment and ReplicaSet created through
   * it is remembered as the generator's, so the controllers leave those (and the pods they control) alone. This is
   * the explicit marker: nothing is guessed from names or labels, and the generator's objects stay byte-identical.
   */
  generatorApi(api: SimApi): SimApi {
    const remember = (ref: SimResourceRef, obj: SimObject): SimObject => {
      if (ref.group === 'apps' && (ref.resource === 'deployments' || ref.resource === 'replicasets') && obj.metadata.uid) this.generatorUids.add(obj.metadata.uid);
      return obj;
    };
    return {
      create: (ref, obj) => remember(ref, api.create(ref, obj)),
      update: (ref, obj) => api.update(ref, obj),
      delete: (ref, namespace, name) => api.delete(ref, namespace, name),
      get: (ref, namespace, name) => api.get(ref, namespace, name),
      list: (ref, namespace) => api.list(ref, namespace),
      currentRevision: () => api.currentRevision(),
    };
  }

  /** Starts following the store. Only changes made from now on drive the controllers: a static cluster stays static. */
  start(): void {
    this.unsubscribe ??= this.store.onCommit((change, type) => this.observe(change, type));
    this.store.admitCreate = (type, obj, namespace) => {
      admitCreate(this.store, type, obj, namespace);
      admitDefaultStorageClass(this.store, type, obj);
    };
    this.store.admitStored = (type, next, prev, dryRun, through) => this.quotaAdmission.admit(type, next, prev, dryRun, through);
    this.store.admissionWrites = () => this.quotaAdmission.pendingWrites();
    this.serviceAccounts.start();
    this.volumes.start();
    this.quotas.startResync();
  }

  /** Stops following the store and cancels every pending timer. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.store.admitCreate = undefined;
    this.store.admitStored = undefined;
    this.store.admissionWrites = undefined;
    this.quotaAdmission.flush();
    for (const c of this.all()) c.queue.stop();
    this.cronJobs.stop();
    this.quotas.stopResync();
  }

  private all(): { queue: { size: number; stop(): void } }[] {
    return [this.deployments, this.replicaSets, this.scheduler, this.kubelet, this.gc, this.namespaces, this.podGC, this.jobs, this.cronJobs,
      this.statefulSets, this.daemonSets, this.endpoints, this.disruption, this.quotas, this.serviceAccounts, this.apiServices, this.volumes];
  }

  /** kube-apiserver's DELETE (graceful deletion, finalizers, propagationPolicy), for the REST handlers. */
  delete(type: ResourceType, namespace: string | undefined, name: string, req: DeleteRequest): DeleteOutcome {
    if (isNamespaceType(type)) return deleteNamespace(this.store, type, name, req);
    return deleteObject(this.store, type, namespace, name, req);
  }

  /** The creation budgets, for /_kwatch/state. */
  budgets(): ReturnType<typeof budgetState> {
    return budgetState(this.ctx.budgets);
  }

  /** Keys waiting in the controllers' queues (0 when the cluster has settled). */
  pending(): number {
    return this.all().reduce((n, c) => n + c.queue.size, 0);
  }

  /** Runs inside the store's write: records and queues only (writing here would reorder watch events). */
  private observe(change: Change, type: ResourceType): void {
    try {
      this.ctx.owners.observe(change, type);
      let parsed: SimObject | undefined;
      const obj = (): SimObject => (parsed ??= change.cur.obj);
      this.gc.observe(change, type, obj);
      if (type.namespaced) {
        this.namespaces.observeContent(change);
        this.quotas.observe(change, type, obj);
      } else if (type.group === 'apiextensions.k8s.io' && type.resource === 'customresourcedefinitions') {
        this.quotas.observeCustomResourceDefinition(obj());
      }
      switch (resourceId(type)) {
        case PODS: return this.observePod(change, obj);
        case REPLICASETS:
          this.replicaSets.observeReplicaSet(change);
          this.deployments.observeReplicaSet(change, obj);
          return;
        case DEPLOYMENTS: return this.deployments.observeDeployment(change);
        case NODES:
          this.scheduler.observeNode(change);
          this.kubelet.observeNode(change);
          this.podGC.observeNode(change);
          this.daemonSets.observeNode();
          return;
        case NAMESPACES:
          this.serviceAccounts.observeNamespace(change);
          return this.namespaces.observeNamespace(change);
        case JOBS:
          this.cronJobs.observeJob(obj);
          return this.jobs.observeJob(change);
        case CRONJOBS: return this.cronJobs.observeCronJob(change);
        case STATEFULSETS: return this.statefulSets.observeStatefulSet(change);
        case DAEMONSETS: return this.daemonSets.observeDaemonSet(change);
        case CONTROLLERREVISIONS:
          this.statefulSets.observeRevision(obj);
          return this.daemonSets.observeRevision(obj);
        case SERVICES: return this.endpoints.observeService(change);
        case PDBS: return this.disruption.observeBudget(change);
        case SERVICEACCOUNTS:
        case CONFIGMAPS: return this.serviceAccounts.observeContent(change, type);
        case CRDS: return this.apiServices.observeCrd();
        case CLAIMS: return this.volumes.observeClaim(change);
        case VOLUMES: return this.volumes.observeVolume(change);
        case STORAGE_CLASSES: return this.volumes.observeClass(change);
      }
    } catch (err) {
      this.errors++;
      this.lastError = `observe ${change.key}: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  private observePod(change: Change, pod: () => SimObject): void {
    const json = change.cur.json;
    // The generator's pods churn constantly: recognise them from the JSON, without parsing, and let them be —
    // unless someone asked to delete one, which the kubelet then carries out.
    const generators = ownerUidsInJson(json).some((uid) => this.generatorUids.has(uid));
    this.podGC.observePod(change);
    if (change.type === 'DELETED') {
      this.kubelet.observePod(change, pod);
      this.scheduler.observePod(change, pod);
      if (!generators) {
        this.replicaSets.observePod(change, pod);
        this.jobs.observePod(pod);
        this.deployments.observePodGone(pod());
        this.observeOwnedPod(change, pod);
      }
      return;
    }
    if (generators) {
      if (json.includes('"deletionTimestamp"')) this.kubelet.observePod(change, pod);
      return;
    }
    this.scheduler.observePod(change, pod);
    this.kubelet.observePod(change, pod);
    this.replicaSets.observePod(change, pod);
    this.jobs.observePod(pod);
    this.observeOwnedPod(change, pod);
  }

  /** The controllers that follow pods beyond the generator's: stateful and daemon sets, endpoints, disruption budgets. */
  private observeOwnedPod(change: Change, pod: () => SimObject): void {
    this.statefulSets.observePod(pod);
    this.daemonSets.observePod(pod);
    this.endpoints.observePod(change);
    this.disruption.observePod(change);
    this.volumes.observePod(change, pod);
  }
}
