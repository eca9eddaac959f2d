// The CronJob controller (kube's cronjob_controllerv2): on each schedule time of the sim's clock it creates a Job from
// the job template — named <cronjob>-<scheduled minutes since the epoch>, controlled by the CronJob, annotated with
// batch.kubernetes.io/cronjob-scheduled-timestamp — and keeps status.active, lastScheduleTime and lastSuccessfulTime.
// Only the most recent missed schedule runs (none if it is older than startingDeadlineSeconds); concurrencyPolicy
// Forbid skips it while a Job is active and Replace deletes the active ones first; suspend stops new Jobs; finished
// Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted, oldest start first. It wakes itself at
// each next schedule time through the clock, so a test's ManualClock runs a day of schedules in no time.
import { SimApiError, type SimObject } from '../api.js';
import type { SimClock } from '../clock.js';
import type { Change } from '../history.js';
import { kubeTime } from '../object-meta.js';
import { groupVersion, type ResourceType } from '../registry.js';
import { splitKey, type ControllerContext } from './controller-context.js';
import { CronSyntaxError, parseSchedule, Zone, type CronSchedule } from '../cron-schedule.js';
import { deleteObject } from './graceful-delete.js';
import { controllerOf, controllerRefTo } from './owner-references.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const COMPONENT = { component: 'cronjob-controller' };
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** Missed schedules past which kube warns (TooManyMissedTimes) instead of walking them all. */
const MANY_MISSED = 100;

/** The Job's condition that finished it: Complete or Failed. */
function finishedAs(job: SimObject): 'Complete' | 'Failed' | undefined {
  const conditions = ((job.status as Json | undefined)?.conditions ?? []) as Json[];
  return conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;
}

const parseTime = (t: unknown): number | undefined => (typeof t === 'string' && t ? Date.parse(t) : undefined);

export class CronJobController {
  readonly queue: WorkQueue;
  private readonly cronJobs: ResourceType;
  private readonly jobs: ResourceType;
  /** The pending wake-up per CronJob key (one at a time: the next schedule time). */
  private readonly wakeups = new Map<string, { at: number; cancel: () => void }>();

  constructor(private readonly ctx: ControllerContext, private readonly clock: SimClock, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
    this.cronJobs = ctx.store.resolve({ group: 'batch', version: 'v1', resource: 'cronjobs' });
    this.jobs = ctx.store.resolve({ group: 'batch', version: 'v1', resource: 'jobs' });
  }

  observeCronJob(change: Change): void {
    if (change.type === 'DELETED') { this.cancelWakeup(change.key); return; }
    this.queue.add(change.key);
  }

  /** A Job changed: the CronJob controlling it looks again (its active list, last success, history). */
  observeJob(job: () => SimObject): void {
    const owner = controllerOf(job());
    if (owner?.kind === 'CronJob' && owner.apiVersion === 'batch/v1') this.queue.add(`${job().metadata.namespace}/${owner.name}`);
  }

  stop(): void {
    for (const w of this.wakeups.values()) w.cancel();
    this.wakeups.clear();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const cronJob = this.ctx.store.getStored(this.cronJobs, namespace, name)?.obj;
    if (!cronJob) { this.cancelWakeup(key); return; }
    // The Jobs whose controller reference names this CronJob (by name, as kube's getJobsToBeReconciled does).
    const jobs = this.ctx.store.storedIn(this.jobs, namespace).map((s) => s.obj).filter((j) => {
      const owner = controllerOf(j);
      return owner?.kind === 'CronJob' && owner.name === name;
    });
    const status: Json = structuredClone((cronJob.status ?? {}) as Json);
    const before = JSON.stringify(status);
    const remaining = this.cleanupFinishedJobs(cronJob, jobs, status);
    const next = this.syncCronJob(cronJob, remaining, status);
    if (JSON.stringify(status) !== before) this.writeStatus(cronJob, status);
    if (next !== undefined) this.wakeAt(key, next);
    else this.cancelWakeup(key);
  }

  /**
   * syncCronJob: reconciles the active list with the Jobs, then starts the most recent unmet schedule if the
   * policies allow it. Answers when to look again (the next schedule time), or undefined when nothing is scheduled.
   */
  private syncCronJob(cronJob: SimObject, jobs: SimObject[], status: Json): number | undefined {
    const spec = (cronJob.spec ?? {}) as Json;
    const now = this.clock.now();
    let active = (Array.isArray(status.active) ? status.active : []) as Json[];
    const uids = new Set(jobs.map((j) => j.metadata.uid));
    for (const job of jobs) {
      const inActive = active.some((a) => a.uid === job.metadata.uid);
      const outcome = finishedAs(job);
      if (!inActive && !outcome) {
        this.event(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name}`);
      } else if (outcome) {
        if (inActive) {
          active = active.filter((a) => a.uid !== job.metadata.uid);
          this.event(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${outcome}`);
        }
        const completed = (job.status as Json | undefined)?.completionTime;
        if (outcome === 'Complete' && completed && (!status.lastSuccessfulTime || Date.parse(completed) > Date.parse(status.lastSuccessfulTime))) status.lastSuccessfulTime = completed;
      }
    }
    for (const ref of active.filter((a) => !uids.has(a.uid))) {
      this.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
      active = active.filter((a) => a !== ref);
    }
    setActive(status, active);
    if (cronJob.metadata.deletionTimestamp !== undefined) return undefined;

    const timeZone = typeof spec.timeZone === 'string' ? spec.timeZone : undefined;
    if (timeZone !== undefined) {
      try { new Zone(timeZone); } catch {
        this.event(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(timeZone)}: unknown time zone ${timeZone}`);
        return undefined;
      }
    }
    if (spec.suspend === true) return undefined;
    let schedule: CronSchedule;
    try {
      schedule = parseSchedule(String(spec.schedule ?? ''), timeZone);
    } catch (err) {
      if (!(err instanceof CronSyntaxError)) throw err;
      this.event(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(spec.schedule)} : ${err.message}`);
      return undefined;
    }
    if (String(spec.schedule).includes('TZ')) {
      this.event(cronJob, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule ${JSON.stringify(spec.schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    const nextAfterNow = schedule.next(now);
    const scheduled = this.mostRecentUnmet(cronJob, schedule, now);
    if (scheduled === undefined) return nextAfterNow;
    const deadline = typeof spec.startingDeadlineSeconds === 'number' ? spec.startingDeadlineSeconds : undefined;
    if (deadline !== undefined && scheduled + deadline * 1000 < now) {
      this.event(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return nextAfterNow;
    }
    const jobName = `${cronJob.metadata.name}-${Math.floor(scheduled / 60_000)}`;
    if (active.some((a) => a.name === jobName) || parseTime(status.lastScheduleTime) === scheduled) return nextAfterNow;
    if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      this.event(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return nextAfterNow;
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...active]) {
        const job = this.ctx.store.getStored(this.jobs, ref.namespace ?? cronJob.metadata.namespace, ref.name)?.obj;
        if (job) this.deleteJob(cronJob, job);
        active = active.filter((a) => a !== ref);
      }
      setActive(status, active);
    }
    const job = this.createJob(cronJob, jobName, scheduled, timeZone);
    if (!job) return nextAfterNow;
    setActive(status, [...active, { kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid, apiVersion: groupVersion(this.jobs), resourceVersion: job.metadata.resourceVersion }]);
    status.lastScheduleTime = kubeTime(new Date(scheduled));
    return nextAfterNow;
  }

  /**
   * mostRecentScheduleTime: the latest schedule time after the last one started (or the CronJob's creation, or now
   * minus startingDeadlineSeconds, whichever is latest) that is not after now; undefined when there is none.
   */
  private mostRecentUnmet(cronJob: SimObject, schedule: CronSchedule, now: number): number | undefined {
    const spec = (cronJob.spec ?? {}) as Json;
    let earliest = parseTime((cronJob.status as Json | undefined)?.lastScheduleTime) ?? parseTime(cronJob.metadata.creationTimestamp) ?? now;
    if (typeof spec.startingDeadlineSeconds === 'number') earliest = Math.max(earliest, now - spec.startingDeadlineSeconds * 1000);
    const first = schedule.next(earliest);
    if (first === undefined || first > now) return undefined;
    let missed = 0;
    let latest = first;
    let t: number | undefined = first;
    // Walk the missed times; past MANY_MISSED, jump by the interval between two of them (kube estimates the same way).
    while (t !== undefined && t <= now) {
      latest = t;
      if (++missed === MANY_MISSED) {
        const second = schedule.next(first);
        const interval = second === undefined ? 0 : second - first;
        if (interval > 0) {
          const skip = Math.floor((now - first) / interval) - 1;
          if (skip > missed) { t = schedule.next(first + skip * interval - 1); missed = skip; continue; }
        }
      }
      t = schedule.next(t);
    }
    if (missed > MANY_MISSED) this.event(cronJob, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    return latest;
  }

  /** getJobFromTemplate2: the template's labels and annotations, the scheduled time annotation, the controller reference. */
  private createJob(cronJob: SimObject, name: string, scheduled: number, timeZone: string | undefined): SimObject | undefined {
    const template = (((cronJob.spec ?? {}) as Json).jobTemplate ?? {}) as Json;
    const meta = (template.metadata ?? {}) as Json;
    const annotations = { ...((meta.annotations ?? {}) as Record<string, string>), [SCHEDULED_TIMESTAMP_ANNOTATION]: new Zone(timeZone).rfc3339(scheduled) };
    if (!this.ctx.budgets.cronJob.allows()) return undefined;
    let job: SimObject;
    try {
      job = this.ctx.store.createObject(this.jobs, {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: {
          name, namespace: cronJob.metadata.namespace,
          ...(meta.labels ? { labels: { ...meta.labels } } : {}),
          annotations,
          ownerReferences: [controllerRefTo(cronJob, this.cronJobs)],
        },
        spec: structuredClone(template.spec ?? {}),
      }, writtenBy(this.jobs, CONTROLLER_MANAGER));
    } catch (err) {
      // AlreadyExists: a Job of this name is there; if it is ours the next sync finds it, otherwise someone else runs it.
      if (err instanceof SimApiError && err.status.code === 409) return undefined;
      this.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
      throw err;
    }
    this.ctx.budgets.cronJob.spend();
    this.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
    return job;
  }

  /**
   * cleanupFinishedJobs: finished Jobs beyond each history limit are deleted, those that started first going first
   * (Jobs without a start time last, names breaking ties). Answers the Jobs left.
   */
  private cleanupFinishedJobs(cronJob: SimObject, jobs: SimObject[], status: Json): SimObject[] {
    const spec = (cronJob.spec ?? {}) as Json;
    const gone = new Set<SimObject>();
    const prune = (outcome: 'Complete' | 'Failed', limit: unknown): void => {
      if (typeof limit !== 'number') return;
      const done = jobs.filter((j) => finishedAs(j) === outcome).sort(byStartTime);
      for (const job of done.slice(0, Math.max(0, done.length - limit))) {
        this.deleteJob(cronJob, job);
        gone.add(job);
      }
    };
    prune('Complete', spec.successfulJobsHistoryLimit);
    prune('Failed', spec.failedJobsHistoryLimit);
    if (gone.size) setActive(status, ((status.active ?? []) as Json[]).filter((a) => ![...gone].some((j) => j.metadata.uid === a.uid)));
    return jobs.filter((j) => !gone.has(j));
  }

  /** deleteJob: in the background (the Job's pods follow through the garbage collector), and out of the active list. */
  private deleteJob(cronJob: SimObject, job: SimObject): void {
    deleteObject(this.ctx.store, this.jobs, job.metadata.namespace, job.metadata.name!, { propagationPolicy: 'Background', preconditions: { uid: job.metadata.uid } });
    this.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
  }

  private writeStatus(cronJob: SimObject, status: Json): void {
    const ordered: Json = {};
    for (const k of ['active', 'lastScheduleTime', 'lastSuccessfulTime']) if (status[k] !== undefined) ordered[k] = status[k];
    this.ctx.store.updateObject(this.cronJobs, { ...cronJob, status: ordered }, { subresource: 'status', ...writtenBy(this.cronJobs, CONTROLLER_MANAGER, 'status') });
  }

  private event(cronJob: SimObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.ctx.events.record(cronJob, this.cronJobs, type, reason, message, COMPONENT);
  }

  /** Arms the one wake-up of `key` for `at` (nextScheduleTimeDuration adds 100 ms so the time has surely passed). */
  private wakeAt(key: string, at: number): void {
    const when = at + 100;
    const current = this.wakeups.get(key);
    if (current?.at === when) return;
    current?.cancel();
    const cancel = this.clock.at(when, () => {
      this.wakeups.delete(key);
      this.queue.add(key);
    });
    this.wakeups.set(key, { at: when, cancel });
  }

  private cancelWakeup(key: string): void {
    this.wakeups.get(key)?.cancel();
    this.wakeups.delete(key);
  }
}

/** status.active, omitted when empty (omitempty). */
function setActive(status: Json, active: Json[]): void {
  if (active.length) status.active = active; else delete status.active;
}

/** byJobStartTime: started Jobs by start time (names break ties), then those not started. */
function byStartTime(a: SimObject, b: SimObject): number {
  const sa = parseTime((a.status as Json | undefined)?.startTime), sb = parseTime((b.status as Json | undefined)?.startTime);
  if (sa === undefined || sb === undefined) return sa === undefined ? (sb === undefined ? cmpName(a, b) : 1) : -1;
  return sa - sb || cmpName(a, b);
}

function cmpName(a: SimObject, b: SimObject): number {
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}

/** Go's time.RFC1123Z of a UTC time: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(t: number): string {
  return new Date(t).toUTCString().replace('GMT', '+0000');
}
