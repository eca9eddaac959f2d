// Jobs (printJob): NAME STATUS COMPLETIONS DURATION AGE, + wide CONTAINERS IMAGES SELECTOR.
import { humanDuration, parseTimestamp } from '../age.js';
import { column } from '../columns.js';
import { JOB } from '../descriptions.js';
import { formatLabelSelector } from '../labels.js';
import { int, list, type PrintableObject } from '../printer.js';
import { podTemplatePrinter } from './pod-template-printer.js';

/** The first of printJob's states whose condition is True; Terminating sits between Failed and Suspended. */
function jobStatus(job: PrintableObject): string {
  const has = (type: string): boolean => list(job.status?.conditions).some((c) => c?.type === type && c?.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  for (const s of ['Suspended', 'FailureTarget', 'SuccessCriteriaMet']) if (has(s)) return s;
  return 'Running';
}

function completions(job: PrintableObject): string {
  const succeeded = int(job.status?.succeeded);
  if (job.spec?.completions !== undefined && job.spec?.completions !== null) return `${succeeded}/${int(job.spec.completions)}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Completion minus start time, or time since start while running; empty before the job starts. */
function duration(job: PrintableObject, now: number): string {
  const start = parseTimestamp(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTimestamp(job.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

export const jobPrinter = podTemplatePrinter({
  columns: [
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', JOB.succeeded),
    column('Duration', 'string', 'Time required to complete the job.'),
  ],
  cells: (job, now) => [jobStatus(job), completions(job), duration(job, now)],
  selector: { description: JOB.selector, cell: (job) => formatLabelSelector(job.spec?.selector) },
});
