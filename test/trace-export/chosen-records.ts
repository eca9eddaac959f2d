// Traces from chosen records: each at a given time after T0, linked by the tracer as a run links them (the other
// way to build a trace here is recorded-runs.ts, from a real in-process reconcile run).
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { TraceCollector, type TraceRow } from '../../src/trace-export/trace-rows.js';

/** The time the chosen records count from (ms since the epoch). */
export const T0 = 1_700_000_000_000;

/** Records at the given times (ms after T0), linked by the tracer as a run links them. */
export function trace(records: [number, Omit<TraceRecord, 'time'>][]): TraceRow[] {
  const tracer = new Tracer();
  const collector = new TraceCollector(tracer);
  for (const [t, r] of records) tracer.emit({ time: T0 + t, ...r } as TraceRecord);
  return collector.stop();
}
