// Stopping a run after its last event without cutting that event short: wait until every stage is done
// with what it was given, then stop. Shared by `kwatch events` (--max-events, --until-synced) and
// `kwatch replay --from-rv` (--until-rv, --max-events).

/** Longest wait: a reconcile that never returns must not hold the CLI forever. */
export const UNTIL_IDLE_MAX_MS = 2000;

/**
 * Resolves once `idle()` holds at a macrotask boundary (when every promise job queued so far has run, so an
 * event just handed to the reflector has reached the FIFO), or after `maxMs`, or when the signal aborts.
 */
export async function untilIdle(idle: () => boolean, signal?: AbortSignal, maxMs = UNTIL_IDLE_MAX_MS): Promise<void> {
  const deadline = Date.now() + maxMs;
  for (let polls = 0; !signal?.aborted && Date.now() < deadline; polls++) {
    // At once for the common case; then gently, while a slow reconcile finishes.
    await new Promise((r) => (polls < 50 ? setImmediate(r) : setTimeout(r, 5)));
    if (idle()) return;
  }
}
