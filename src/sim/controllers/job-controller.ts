// The Job controller: runs a batch/v1 Job's pods (from the template, controlled by the Job) up to parallelism until
// completions pods have succeeded, and reports status as kube 1.32 does — startTime, active/ready/succeeded/failed,
// terminating, uncountedTerminatedPods, then SuccessCriteriaMet and Complete (CompletionsReached) and completionTime.
// Approximations: no batch.kubernetes.io/job-tracking finalizer (succeeded never decreases instead), no backoff,
// failure policy, deadlines, Indexed mode or suspend handling beyond not starting pods.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { kubeTime } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import { keyOf, type ControllerContext } from './controller-context.js';
import { controllerOf, controllerRefTo } from './owner-references.js';
import { isActive, isReady } from './replicaset-controller.js';
import { WorkQueue } from './work-queue.js';
import { workloadPods } from './workload-pods.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const COMPONENT = { component: 'job-controller' };
const COMPLETIONS_REACHED = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };

export class JobController {
  readonly queue: WorkQueue;

  constructor(private readonly ctx: ControllerContext, private readonly jobs: ResourceType, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observeJob(change: Change): void {
    if (change.type !== 'DELETED') this.queue.add(change.key);
  }

  observePod(pod: () => SimObject): void {
    const p = pod();
    const owner = controllerOf(p);
    if (owner?.kind === 'Job' && owner.apiVersion === 'batch/v1') this.queue.add(`${p.metadata.namespace}/${owner.name}`);
  }

  private sync(key: string): void {
    const found = workloadPods(this.ctx, this.jobs, key, finished);
    if (!found) return;
    const { workload: job, pods } = found;
    const namespace = job.metadata.namespace;
    const { store, types, events } = this.ctx;
    const spec = (job.spec ?? {}) as Json;
    const prev = (job.status ?? {}) as Json;
    const active = pods.filter(isActive);
    const phase = (p: SimObject): unknown => (p.status as Json | undefined)?.phase;
    const succeeded = Math.max(Number(prev.succeeded ?? 0), pods.filter((p) => phase(p) === 'Succeeded').length);
    const failed = Math.max(Number(prev.failed ?? 0), pods.filter((p) => phase(p) === 'Failed').length);
    const terminating = pods.filter((p) => p.metadata.deletionTimestamp !== undefined && phase(p) !== 'Succeeded' && phase(p) !== 'Failed').length;
    const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    const complete = completions === undefined ? succeeded > 0 && active.length === 0 : succeeded >= completions;
    const now = kubeTime(new Date());
    let created = 0;
    if (!complete && spec.suspend !== true && job.metadata.deletionTimestamp === undefined) {
      const want = completions === undefined ? (succeeded > 0 ? 0 : parallelism) : Math.min(parallelism, completions - succeeded);
      const template = (spec.template ?? {}) as Json;
      const meta = (template.metadata ?? {}) as Json;
      for (let i = active.length; i < want && this.ctx.budgets.job.allows(); i++) {
        const pod: SimObject = {
          apiVersion: 'v1', kind: 'Pod',
          metadata: {
            generateName: `${job.metadata.name}-`, namespace,
            ...(meta.labels ? { labels: { ...meta.labels } } : {}),
            ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
            ownerReferences: [controllerRefTo(job, this.jobs)],
            ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
          },
          spec: structuredClone(template.spec ?? {}),
        };
        const pc = store.createObject(types.pods, pod, writtenBy(types.pods, CONTROLLER_MANAGER));
        this.ctx.budgets.job.spend();
        created++;
        events.record(job, this.jobs, 'Normal', 'SuccessfulCreate', `Created pod: ${pc.metadata.name}`, COMPONENT);
      }
    }
    // JobStatus in Go field order; the counts kube always writes (terminating, ready, uncountedTerminatedPods) are kept.
    const conditions: Json[] = Array.isArray(prev.conditions) ? [...prev.conditions] : [];
    const criteriaMet = conditions.some((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True');
    if (complete && !criteriaMet) conditions.push(condition('SuccessCriteriaMet', now));
    // Complete follows once no pod is left terminating (in the next sync, as kube writes it).
    const done = complete && criteriaMet && terminating === 0;
    if (done) conditions.push(condition('Complete', now));
    const status: Json = {};
    if (conditions.length) status.conditions = conditions;
    status.startTime = prev.startTime ?? (spec.suspend === true ? undefined : now);
    if (status.startTime === undefined) delete status.startTime;
    if (done) status.completionTime = now;
    const activeCount = active.length + created;
    if (activeCount) status.active = activeCount;
    if (succeeded) status.succeeded = succeeded;
    if (failed) status.failed = failed;
    status.terminating = terminating;
    status.uncountedTerminatedPods = {};
    status.ready = active.filter(isReady).length;
    store.updateObject(this.jobs, { ...job, status }, { subresource: 'status', ...writtenBy(this.jobs, CONTROLLER_MANAGER, 'status') });
    if (done) events.record(job, this.jobs, 'Normal', 'Completed', 'Job completed', COMPONENT);
    else if (complete) this.queue.add(keyOf(job));
  }
}

function condition(type: string, time: string): Json {
  return { type, status: 'True', lastProbeTime: time, lastTransitionTime: time, ...COMPLETIONS_REACHED };
}

/** Complete or Failed (True): kube's IsJobFinished. */
export function finished(job: SimObject): boolean {
  const conditions = ((job.status as Json | undefined)?.conditions ?? []) as Json[];
  return conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

