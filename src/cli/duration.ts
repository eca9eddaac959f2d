// Parses kubectl-style durations for flags ("5s", "1m30s", "250ms", "2h"; a bare number means seconds).
import { durationMs, MAX_TIMER_MS } from '../informer/duration.js';
import { UserError } from './user-error.js';

/** MAX_TIMER_MS as a user writes it: 596h31m23.647s. */
const MAX_TIMER_TEXT = '596h31m23s';

/**
 * Returns milliseconds. `flag` names the flag in the error message. A duration a timer waits for is refused past
 * Node's timer range (about 24.8 days: a longer timer fires at once); `{ timer: false }` for one only compared
 * (a cache's age).
 */
export function parseDuration(text: string, flag = 'duration', o: { timer?: boolean } = {}): number {
  const ms = durationMs(text);
  if (ms === undefined) throw new UserError(`invalid ${flag} "${text}": use a duration such as 30s, 5m or 1h30m (a bare number means seconds)`);
  if ((o.timer ?? true) && ms > MAX_TIMER_MS) throw new UserError(`invalid ${flag} "${text}": at most ${MAX_TIMER_TEXT} (about 24.8 days, the longest timer Node.js keeps)`);
  return ms;
}
