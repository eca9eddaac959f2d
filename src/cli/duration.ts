// Parses kubectl-style durations for flags ("5s", "1m30s", "250ms", "2h"; a bare number means seconds).
import { durationMs } from '../informer/duration.js';
import { UserError } from './user-error.js';

/** Returns milliseconds. `flag` names the flag in the error message. */
export function parseDuration(text: string, flag = 'duration'): number {
  const ms = durationMs(text);
  if (ms === undefined) throw new UserError(`invalid ${flag} "${text}": use a duration such as 30s, 5m or 1h30m (a bare number means seconds)`);
  return ms;
}
