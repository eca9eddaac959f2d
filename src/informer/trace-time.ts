// The time put on a trace record. Reading the real clock is a system call on the hosts measured (0.3–0.6 µs each,
// `Date.now()` and `performance.now()` alike), and a traced watch event makes six records: so one reading serves the
// records of one event-loop turn, at most READS_PER_READING of them, and none made after user code ran (a handler or
// a reconcile may take long: the records after it read the clock again). Any other clock (a test's FakeClock) is read
// every time, so virtual time stays exact.
import { realClock, type Clock } from './clock.js';

/** Records that share one reading at most: a turn that runs long (a replay drained in one go) still moves on. */
const READS_PER_READING = 32;

let reading = 0;
let uses = READS_PER_READING;
let resetScheduled = false;

const reset = (): void => {
  resetScheduled = false;
  uses = READS_PER_READING;
};

/** The time for a record made now: `clock.now()`, or for the real clock a reading shared within the turn. */
export function traceTime(clock: Clock): number {
  if (clock !== realClock) return clock.now();
  if (uses < READS_PER_READING) {
    uses++;
    return reading;
  }
  reading = Date.now();
  uses = 1;
  if (!resetScheduled) {
    resetScheduled = true;
    // The next turn reads afresh; unref'd, so that a last record never keeps the process alive.
    setImmediate(reset).unref();
  }
  return reading;
}

/** User code ran (a handler, a reconcile): the next record reads the clock again. */
export function traceTimeStale(): void {
  uses = READS_PER_READING;
}
