// Conformance: real kubectl (v1.32) against the sim's CronJob controller, with the sim's clock a ManualClock the test
// moves forward (no test waits for a real minute): Jobs on schedule with kube's names, annotation and owner, the
// status kubectl shows, time zones, each concurrency policy, history limits, suspend, the starting deadline, and
// `kubectl create job --from=cronjob/…`.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/sim/clock.js';
import { kubectlSim, until } from './sim-helpers.js';

const MINUTE = 60_000;
// Three hours in the past, 30 s into a minute: objects get creationTimestamps of the clock, so ages print as a
// cluster's would, and every time the test moves to stays before the real time the server prints ages against.
const START = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * 60 * MINUTE + 30_000;
const clock = new ManualClock(START);
// Pods start and Jobs run on real timers (the kubelet's): short ones, as every wait here is for a state, not a time.
const fx = kubectlSim({ nodes: 2, pods: 0, churn: 0, clock, controllers: { graceScale: 0.03, podStartMs: 20, jobPodRunMs: 50 } }, 'kwatch-cronjobs-');
const kubectl = fx.kubectl;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/));
/** The next whole minute of the clock, plus `plus` ms. */
const nextMinute = (plus = 5_000): number => Math.floor(clock.now() / MINUTE) * MINUTE + MINUTE + plus;
const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');

/** The Jobs of each CronJob (by owner name) that are not being deleted, as one `kubectl get jobs` shows them, sorted. */
async function ownedJobs(): Promise<Record<string, string[]>> {
  const r = await kubectl('get', 'jobs', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.ownerReferences[0].name} {.metadata.deletionTimestamp}{"\\n"}{end}');
  const owned: Record<string, string[]> = {};
  for (const [name, owner] of rows(r.stdout).filter((x) => x.length === 2)) (owned[owner] ??= []).push(name);
  for (const names of Object.values(owned)) names.sort();
  return owned;
}

/** Names of the Jobs a CronJob controls (kubectl get jobs, filtered by owner), sorted. */
async function jobsOf(cronJob: string): Promise<string[]> {
  return (await ownedJobs())[cronJob] ?? [];
}

async function status(cronJob: string): Promise<any> {
  return JSON.parse((await kubectl('get', 'cronjob', cronJob, '-o', 'jsonpath={.status}')).stdout || '{}');
}

/** What one `kubectl get cronjobs,jobs,events -o json` shows: the reads below, from one kubectl run. */
interface Snapshot {
  /** As jobsOf: the Jobs a CronJob controls that are not being deleted, sorted. */
  jobsOf(cronJob: string): string[];
  job(name: string): any;
  /** As status: the CronJob's status, {} when it has none. */
  status(cronJob: string): any;
  /** As eventReasons, without the server's field selector (eventReasons judges that). */
  eventReasons(cronJob: string): string[];
}

/**
 * One kubectl run for what a test checks once a wait is over (status, Jobs and events), where each read was a kubectl
 * run of its own: the same objects, as the same server serves them, read from one List.
 */
async function snapshot(): Promise<Snapshot> {
  const r = await kubectl('get', 'cronjobs,jobs,events', '-o', 'json');
  expect(r.code, r.stderr).toBe(0);
  const items = (JSON.parse(r.stdout) as { items: any[] }).items;
  const ofKind = (kind: string) => items.filter((o) => o.kind === kind);
  return {
    jobsOf: (cronJob) => ofKind('Job').filter((j) => j.metadata.ownerReferences?.[0]?.name === cronJob && !j.metadata.deletionTimestamp).map((j) => j.metadata.name as string).sort(),
    job: (name) => ofKind('Job').find((j) => j.metadata.name === name),
    status: (cronJob) => ofKind('CronJob').find((c) => c.metadata.name === cronJob)?.status ?? {},
    eventReasons: (cronJob) => ofKind('Event').filter((e) => e.involvedObject?.kind === 'CronJob' && e.involvedObject?.name === cronJob).map((e) => e.reason as string),
  };
}

async function eventReasons(cronJob: string): Promise<string[]> {
  const r = await kubectl('get', 'events', '--field-selector', `involvedObject.kind=CronJob,involvedObject.name=${cronJob}`, '-o', 'jsonpath={range .items[*]}{.reason}{"\\n"}{end}');
  return r.stdout.trim().split('\n').filter(Boolean);
}

function cronJobYaml(name: string, lines: string[], opts: { pending?: boolean } = {}): string {
  return fx.file(`${name}.yaml`, [
    'apiVersion: batch/v1', 'kind: CronJob', `metadata: {name: ${name}}`, 'spec:', ...lines.map((l) => `  ${l}`),
    '  jobTemplate:', '    spec:', '      template:', '        spec:', '          restartPolicy: Never',
    // A node selector no node has keeps the Job's pod Pending, so the Job stays active.
    ...(opts.pending ? ['          nodeSelector: {kwatch-test: nowhere}'] : []),
    '          containers: [{name: main, image: busybox}]',
  ].join('\n'));
}

/*
 * The waits below read the sim's store in process (a kubectl per poll cost more CPU than the controller it waited
 * on); what a test asserts once a wait is over is still read with kubectl.
 */
const JOBS = { group: 'batch', version: 'v1', resource: 'jobs' };
const CRONJOBS = { group: 'batch', version: 'v1', resource: 'cronjobs' };
const EVENTS = { group: '', version: 'v1', resource: 'events' };

/** What jobsOf reads, from the store. */
function storedJobsOf(cronJob: string): string[] {
  return fx.sim.api.list(JOBS, 'default')
    .filter((j) => j.metadata.ownerReferences?.[0]?.name === cronJob && !j.metadata.deletionTimestamp)
    .map((j) => j.metadata.name!).sort();
}

function storedStatus(cronJob: string): any {
  return fx.sim.api.get(CRONJOBS, 'default', cronJob)?.status ?? {};
}

function storedEventReasons(cronJob: string): string[] {
  return fx.sim.api.list(EVENTS, 'default')
    .filter((e: any) => e.involvedObject?.kind === 'CronJob' && e.involvedObject?.name === cronJob)
    .map((e: any) => e.reason as string);
}

const storedSucceeded = (job: string): unknown => (fx.sim.api.get(JOBS, 'default', job)?.status as { succeeded?: number } | undefined)?.succeeded;

/** Waits until the controllers' queues are empty: every change so far has been acted on. */
async function settled(): Promise<void> {
  await until(() => fx.sim.controllers!.pending() === 0, 5_000);
}

/** Deletes the CronJobs (one kubectl run) and checks their Jobs go with them (one more). */
async function removeCronJob(...names: string[]): Promise<void> {
  expect((await kubectl('delete', 'cronjob', ...names)).code).toBe(0);
  await until(() => names.every((name) => storedJobsOf(name).length === 0), 10_000);
  const owned = await ownedJobs();
  for (const name of names) expect(owned[name] ?? [], name).toEqual([]);
}

describe('CronJobs against the sim', () => {
  it('creates a Job on each schedule time of the sim clock: name, annotation, owner, status, columns, last success', async () => {
    expect((await kubectl('create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/1 * * * *', '--', 'true')).stdout.trim()).toBe('cronjob.batch/tick created');
    expect(await jobsOf('tick')).toEqual([]);
    const due = nextMinute(0);
    clock.set(due + 5_000);
    const name = `tick-${due / MINUTE}`;
    await until(() => storedJobsOf('tick').includes(name), 10_000);
    const created = await snapshot();
    const job = created.job(name);
    expect(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(iso(due));
    expect(job.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: expect.any(String), controller: true, blockOwnerDeletion: true }]);
    const s = created.status('tick');
    expect(s.lastScheduleTime).toBe(iso(due));
    expect(s.active?.map((a: any) => [a.kind, a.name, a.apiVersion]) ?? []).toEqual(s.active ? [['Job', name, 'batch/v1']] : []);
    const table = rows((await kubectl('get', 'cronjobs', 'tick')).stdout);
    expect(table[0]).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST', 'SCHEDULE', 'AGE']);
    expect(table[1].slice(0, 8)).toEqual(['tick', '*/1', '*', '*', '*', '*', '<none>', 'False']);
    // LAST SCHEDULE and AGE: about three hours (the clock runs three hours behind the server's printing time).
    expect(table[1][9]).toMatch(/^(1[78]\dm|3h(\d+m)?)$/);
    expect(table[1][10]).toMatch(/^(1[78]\dm|3h(\d+m)?)$/);
    // The Job runs to completion: it leaves the active list and becomes the last success.
    await until(() => { const st = storedStatus('tick'); return !st.active && st.lastSuccessfulTime !== undefined; }, 10_000);
    const done = await status('tick');
    expect([done.active, typeof done.lastSuccessfulTime]).toEqual([undefined, 'string']);
    // The events the controller records, found by kubectl's field selector on the involved object.
    expect(await eventReasons('tick')).toEqual(expect.arrayContaining(['SuccessfulCreate', 'SawCompletedJob']));
    // One more minute, one more Job.
    const again = nextMinute(0);
    clock.set(again + 5_000);
    await until(() => storedJobsOf('tick').includes(`tick-${again / MINUTE}`), 10_000);
    const later = await snapshot();
    expect(later.jobsOf('tick')).toContain(`tick-${again / MINUTE}`);
    expect(later.status('tick').lastScheduleTime).toBe(iso(again));
    await removeCronJob('tick');
  });

  it('@hourly in spec.timeZone: the schedule follows the zone, the annotation carries its offset', async () => {
    // Asia/Kolkata is UTC+05:30: its full hours are half past in UTC.
    expect((await kubectl('create', '-f', cronJobYaml('zoned', ['schedule: "@hourly"', 'timeZone: Asia/Kolkata']))).code).toBe(0);
    const table = rows((await kubectl('get', 'cronjob', 'zoned', '--no-headers')).stdout);
    expect(table[0].slice(0, 3)).toEqual(['zoned', '@hourly', 'Asia/Kolkata']);
    clock.advance(60 * MINUTE);
    await until(() => storedJobsOf('zoned').length === 1, 10_000);
    const seen = await snapshot();
    const zonedJobs = seen.jobsOf('zoned');
    expect(zonedJobs).toHaveLength(1);
    const [name] = zonedJobs;
    const minutes = Number(name.slice('zoned-'.length));
    expect(minutes % 60).toBe(30);
    const annotation = seen.job(name).metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'];
    expect(annotation).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\+05:30$/);
    expect(Date.parse(annotation)).toBe(minutes * MINUTE);
    await removeCronJob('zoned');
  });

  it('concurrencyPolicy: Allow runs Jobs side by side, Forbid skips while one is active, Replace deletes it first', async () => {
    const files = ['Allow', 'Forbid', 'Replace'].map((policy) => cronJobYaml(policy.toLowerCase(), ['schedule: "* * * * *"', `concurrencyPolicy: ${policy}`], { pending: true }));
    const created = await kubectl('create', ...files.flatMap((f) => ['-f', f]));
    expect([created.code, created.stdout]).toEqual([0, 'cronjob.batch/allow created\ncronjob.batch/forbid created\ncronjob.batch/replace created\n']);
    const first = nextMinute(0);
    clock.set(first + 5_000);
    for (const cj of ['allow', 'forbid', 'replace']) await until(() => storedJobsOf(cj).length === 1, 10_000);
    const firstJobs = await ownedJobs();
    for (const cj of ['allow', 'forbid', 'replace']) expect(firstJobs[cj]).toEqual([`${cj}-${first / MINUTE}`]);
    const second = nextMinute(0);
    clock.set(second + 5_000);
    await until(() => storedJobsOf('allow').length === 2, 10_000);
    await until(() => storedJobsOf('replace').join() === `replace-${second / MINUTE}`, 10_000);
    await until(() => storedEventReasons('forbid').includes('JobAlreadyActive'), 10_000);
    const seen = await snapshot();
    expect(seen.jobsOf('allow')).toEqual([`allow-${first / MINUTE}`, `allow-${second / MINUTE}`]);
    expect(seen.status('allow').active.map((a: any) => a.name).sort()).toEqual([`allow-${first / MINUTE}`, `allow-${second / MINUTE}`]);
    expect(seen.jobsOf('replace')).toEqual([`replace-${second / MINUTE}`]);
    expect(seen.status('replace').active.map((a: any) => a.name)).toEqual([`replace-${second / MINUTE}`]);
    expect(seen.eventReasons('replace')).toContain('SuccessfulDelete');
    expect(seen.eventReasons('forbid')).toContain('JobAlreadyActive');
    expect(seen.jobsOf('forbid')).toEqual([`forbid-${first / MINUTE}`]);
    const forbid = seen.status('forbid');
    expect([forbid.active.map((a: any) => a.name), forbid.lastScheduleTime]).toEqual([[`forbid-${first / MINUTE}`], iso(first)]);
    expect(rows((await kubectl('get', 'cronjobs', 'allow', 'forbid', 'replace', '--no-headers')).stdout).map((r) => [r[0], r[8]])).toEqual([['allow', '2'], ['forbid', '1'], ['replace', '1']]);
    await removeCronJob('allow', 'forbid', 'replace');
  });

  it('successfulJobsHistoryLimit and failedJobsHistoryLimit: the oldest finished Jobs beyond them are deleted', async () => {
    expect((await kubectl('create', '-f', cronJobYaml('kept', ['schedule: "* * * * *"', 'successfulJobsHistoryLimit: 2']))).code).toBe(0);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const due = nextMinute(0);
      clock.set(due + 5_000);
      names.push(`kept-${due / MINUTE}`);
      // Each Job finishes before the next schedule time, so all four count against the limit.
      await until(() => storedSucceeded(names.at(-1)!) === 1, 10_000);
    }
    await until(() => storedJobsOf('kept').join() === names.slice(2).join(), 10_000);
    const kept = await snapshot();
    expect(kept.jobsOf('kept').map((n) => [n, kept.job(n).status.succeeded])).toEqual(names.slice(2).map((n) => [n, 1]));
    expect(kept.eventReasons('kept')).toContain('SuccessfulDelete');
    await removeCronJob('kept');

    // Failed Jobs: the sim's pods do not fail, so the test marks each Job failed as a Job controller would.
    expect((await kubectl('create', '-f', cronJobYaml('failing', ['schedule: "* * * * *"', 'failedJobsHistoryLimit: 1'], { pending: true }))).code).toBe(0);
    const failed: string[] = [];
    for (let i = 0; i < 2; i++) {
      const due = nextMinute(0);
      clock.set(due + 5_000);
      failed.push(`failing-${due / MINUTE}`);
      await until(() => storedJobsOf('failing').includes(failed.at(-1)!), 10_000);
      const condition = { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: iso(due), lastTransitionTime: iso(due) };
      const p = await kubectl('patch', 'job', failed.at(-1)!, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [condition], startTime: iso(due + i) } }));
      expect(p.code, p.stderr).toBe(0);
    }
    await until(() => storedJobsOf('failing').join() === failed[1], 10_000);
    await until(() => storedStatus('failing').active === undefined, 10_000);
    const after = await snapshot();
    expect(after.jobsOf('failing')).toEqual([failed[1]]);
    expect(after.status('failing').active).toBeUndefined();
    await removeCronJob('failing');
  });

  it('suspend: no Jobs while suspended (SUSPEND True); resumed, the most recent missed schedule runs', async () => {
    expect((await kubectl('create', '-f', cronJobYaml('paused', ['schedule: "* * * * *"', 'suspend: true']))).code).toBe(0);
    clock.set(nextMinute(0) + 5_000);
    clock.set(nextMinute(0) + 5_000);
    const last = Math.floor(clock.now() / MINUTE) * MINUTE;
    // The controller has had its turn (its queues are empty) and saw two schedule times pass.
    await settled();
    expect(rows((await kubectl('get', 'cronjob', 'paused', '--no-headers')).stdout)[0][7]).toBe('True');
    const suspended = await snapshot();
    expect(suspended.jobsOf('paused')).toEqual([]);
    expect(suspended.status('paused').lastScheduleTime).toBeUndefined();
    expect((await kubectl('patch', 'cronjob', 'paused', '--type=merge', '-p', '{"spec":{"suspend":false}}')).code).toBe(0);
    await until(() => storedJobsOf('paused').join() === `paused-${last / MINUTE}`, 10_000);
    expect(await jobsOf('paused')).toEqual([`paused-${last / MINUTE}`]);
    expect(rows((await kubectl('get', 'cronjob', 'paused', '--no-headers')).stdout)[0][7]).toBe('False');
    await removeCronJob('paused');
  });

  it('startingDeadlineSeconds: a schedule time older than the deadline is not run, the next one is', async () => {
    expect((await kubectl('create', '-f', cronJobYaml('late', ['schedule: "* * * * *"', 'startingDeadlineSeconds: 10', 'suspend: true']))).code).toBe(0);
    clock.set(nextMinute(30_000));
    // Resumed 30 s after a schedule time, 20 s past its deadline: nothing starts.
    expect((await kubectl('patch', 'cronjob', 'late', '--type=merge', '-p', '{"spec":{"suspend":false}}')).code).toBe(0);
    await settled();
    const missed = await snapshot();
    expect(missed.jobsOf('late')).toEqual([]);
    expect(missed.status('late').lastScheduleTime).toBeUndefined();
    const due = nextMinute(0);
    clock.set(due + 5_000);
    await until(() => storedJobsOf('late').join() === `late-${due / MINUTE}`, 10_000);
    expect(await jobsOf('late')).toEqual([`late-${due / MINUTE}`]);
    await removeCronJob('late');
  });

  it('kubectl create job --from=cronjob: a manual Job from the template, owned by the CronJob, run to completion', async () => {
    expect((await kubectl('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=@daily', '--', 'true')).code).toBe(0);
    const c = await kubectl('create', 'job', 'nightly-manual', '--from=cronjob/nightly');
    expect(c.stdout.trim()).toBe('job.batch/nightly-manual created');
    const job = JSON.parse((await kubectl('get', 'job', 'nightly-manual', '-o', 'json')).stdout);
    expect(job.metadata.annotations).toEqual({ 'cronjob.kubernetes.io/instantiate': 'manual' });
    expect(job.metadata.ownerReferences[0]).toMatchObject({ kind: 'CronJob', name: 'nightly', controller: true });
    expect(job.spec.template.spec.containers[0].command).toEqual(['true']);
    await until(() => storedSucceeded('nightly-manual') === 1, 10_000);
    const ran = await snapshot();
    expect(ran.job('nightly-manual').status.succeeded).toBe(1);
    // Not the controller's own: kube warns about it and leaves it out of status.active.
    expect(ran.eventReasons('nightly')).toContain('UnexpectedJob');
    expect(ran.status('nightly').active).toBeUndefined();
    await removeCronJob('nightly');
    expect(fx.sim.controllers!.errors).toBe(0);
  });

  it('rejects what kube rejects: an unparseable schedule, TZ= in the schedule, an unknown time zone, an unknown policy', async () => {
    const bad = async (...args: string[]): Promise<string> => (await kubectl('create', 'cronjob', 'bad', '--image=busybox', ...args)).stderr.trim();
    expect(await bad('--schedule=61 * * * *')).toBe('error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61');
    expect(await bad('--schedule=* * *')).toContain('spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]');
    expect(await bad('--schedule=TZ=UTC 0 * * * *')).toContain('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
    // Both files in one run: kubectl sends each and prints each refusal.
    const files = await kubectl('create', '-f', cronJobYaml('bad-zone', ['schedule: "@daily"', 'timeZone: Mars/Olympus']), '-f', cronJobYaml('bad-policy', ['schedule: "@daily"', 'concurrencyPolicy: Sometimes']));
    expect(files.code).not.toBe(0);
    expect(files.stderr).toMatch(/"bad-zone" is invalid: .*spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/);
    expect(files.stderr).toMatch(/"bad-policy" is invalid: .*spec\.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"/);
  });
});
