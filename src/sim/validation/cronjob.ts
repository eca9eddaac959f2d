// CronJob validation of kube 1.32 (batch/validation validateCronJobSpec): the name leaves room for the Job suffix,
// the schedule parses as cron.ParseStandard does and carries no TZ= prefix (spec.timeZone instead), the time zone is
// a real one, the policies and limits are in range, and the job template's pods run to completion.
import { CronSyntaxError, parseSchedule, Zone } from '../cron-schedule.js';
import type { FieldError } from '../status.js';
import { validatePodSpec } from './pod-spec.js';
import { nonNegative } from './replicated-spec.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});

/** A Job's name is <cronjob>-<minutes since the epoch>: kube keeps CronJob names to 52 characters. */
const MAX_NAME = 52;
const TIME_ZONE_PART = /^[A-Za-z._+\-0-9]+$/;

function scheduleErrors(schedule: string, prevSchedule: string | undefined, timeZone: unknown): FieldError[] {
  const errs: FieldError[] = [];
  try {
    parseSchedule(schedule);
  } catch (err) {
    if (!(err instanceof CronSyntaxError)) throw err;
    errs.push({ field: 'spec.schedule', type: 'Invalid value', value: schedule, detail: err.message });
  }
  const allowTZ = prevSchedule !== undefined && prevSchedule.includes('TZ');
  if (allowTZ && schedule.includes('TZ') && timeZone !== undefined && timeZone !== null) {
    errs.push({ field: 'spec.schedule', type: 'Invalid value', value: schedule, detail: 'cannot use both timeZone field and TZ or CRON_TZ in schedule' });
  } else if (!allowTZ && schedule.includes('TZ')) {
    errs.push({ field: 'spec.schedule', type: 'Invalid value', value: schedule, detail: 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead' });
  }
  return errs;
}

function timeZoneErrors(timeZone: unknown): FieldError[] {
  if (timeZone === undefined || timeZone === null) return [];
  const tz = String(timeZone);
  const invalid = (detail: string): FieldError => ({ field: 'spec.timeZone', type: 'Invalid value', value: tz, detail });
  if (tz === '') return [invalid('timeZone must be nil or non-empty string')];
  if (tz.split('/').some((p) => p === '.' || p === '..' || p.startsWith('-') || !TIME_ZONE_PART.test(p))) return [invalid(`unknown time zone ${tz}`)];
  if (tz.toLowerCase() === 'local') return [invalid('timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  try {
    new Zone(tz);
  } catch {
    return [invalid(`unknown time zone ${tz}`)];
  }
  return [];
}

export function validateCronJob(next: Json, prev: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(obj(next.metadata).name ?? '');
  if (!prev && name.length > MAX_NAME) errs.push({ field: 'metadata.name', type: 'Invalid value', value: name, detail: `must be no more than ${MAX_NAME} characters` });
  const spec = obj(next.spec);
  const old = prev ? obj(prev.spec) : undefined;
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') errs.push({ field: 'spec.schedule', type: 'Required value', detail: '' });
  else errs.push(...scheduleErrors(schedule, old ? String(old.schedule ?? '') : undefined, spec.timeZone));
  errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  if (!old || old.timeZone !== spec.timeZone) errs.push(...timeZoneErrors(spec.timeZone));
  const policy = spec.concurrencyPolicy;
  if (policy === undefined || policy === '') errs.push({ field: 'spec.concurrencyPolicy', type: 'Required value', detail: '' });
  else if (policy !== 'Allow' && policy !== 'Forbid' && policy !== 'Replace') errs.push({ field: 'spec.concurrencyPolicy', type: 'Unsupported value', value: policy, detail: 'supported values: "Allow", "Forbid", "Replace"' });
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'), ...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  const podSpec = obj(obj(obj(obj(spec.jobTemplate).spec).template).spec);
  const restartPolicy = podSpec.restartPolicy;
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push({ field: 'spec.jobTemplate.spec.template.spec.restartPolicy', type: 'Unsupported value', value: restartPolicy ?? '', detail: 'supported values: "OnFailure", "Never"' });
  }
  errs.push(...validatePodSpec(podSpec, 'spec.jobTemplate.spec.template.spec'));
  return errs;
}
