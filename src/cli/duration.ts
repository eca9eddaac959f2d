// Parses kubectl-style durations ("5s", "1m30s", "250ms", "2h"; a bare number means seconds).
import { UserError } from './user-error.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Returns milliseconds. `flag` names the flag in the error message. */
export function parseDuration(text: string, flag = 'duration'): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    matched = re.lastIndex;
  }
  if (!s || matched !== s.length) {
    throw new UserError(`invalid ${flag} "${text}": use a duration such as 30s, 5m or 1h30m (a bare number means seconds)`);
  }
  return total;
}
