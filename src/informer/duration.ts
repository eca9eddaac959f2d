// Go-style durations ("5s", "1m30s", "250ms", "2h"; a bare number means seconds), parsed to milliseconds.

/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay as a timer can take it: longer ones are cut to MAX_TIMER_MS (they would fire at once), negative ones to 0. */
export function timerMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined when text is not a duration. */
export function durationMs(text: string): number | undefined {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    matched = re.lastIndex;
  }
  return !s || matched !== s.length ? undefined : total;
}
