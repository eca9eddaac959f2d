// Exponential backoff with jitter and a quiet-period reset: client-go's ExponentialBackoffManager, as pure data.

/**
 * The policy (client-go's reflector uses 800 ms doubling to a 30 s cap, jitter 1.0, reset after 2 min).
 * With jitter j each wait is uniformly in [d, d·(1+j)).
 */
export interface BackoffConfig {
  initialMs: number;
  maxMs: number;
  /** A backoff requested more than this long after the previous one starts again from initialMs. */
  resetMs: number;
  factor: number;
  jitter: number;
}

export const REFLECTOR_BACKOFF: BackoffConfig = { initialMs: 800, maxMs: 30_000, resetMs: 120_000, factor: 2, jitter: 1 };

/**
 * Where the sequence stands. `durationMs` is the next un-jittered wait; `capped` is true once the cap was
 * reached (client-go's Steps = 0, after which the cap is returned, jittered, forever); `lastBackoffAt` is
 * the time of the previous request (or of creation), which decides the reset.
 */
export interface BackoffState {
  durationMs: number;
  capped: boolean;
  lastBackoffAt: number;
}

export function initialBackoffState(config: BackoffConfig, now: number): BackoffState {
  return { durationMs: config.initialMs, capped: false, lastBackoffAt: now };
}

/**
 * The next wait (client-go's getNextBackoff + Backoff.Step): reset if the previous backoff was longer than
 * resetMs ago, take the current duration, advance it by factor (clamping at maxMs), then jitter what was taken.
 * `random` is one draw in [0, 1).
 */
export function nextBackoff(config: BackoffConfig, state: BackoffState, now: number, random: number): { ms: number; state: BackoffState } {
  let { durationMs, capped } = state;
  if (now - state.lastBackoffAt > config.resetMs) {
    durationMs = config.initialMs;
    capped = false;
  }
  const taken = durationMs;
  if (!capped) {
    durationMs = durationMs * config.factor;
    if (config.maxMs > 0 && durationMs > config.maxMs) {
      durationMs = config.maxMs;
      capped = true;
    }
  }
  const ms = config.jitter > 0 ? taken + random * config.jitter * taken : taken;
  return { ms, state: { durationMs, capped, lastBackoffAt: now } };
}

/** A stateful convenience wrapper over nextBackoff for callers outside the reflector's state machine. */
export class ExponentialBackoffManager {
  private state: BackoffState;

  constructor(
    private readonly config: BackoffConfig = REFLECTOR_BACKOFF,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.state = initialBackoffState(config, now());
  }

  /** Milliseconds to wait before the next attempt. */
  next(): number {
    const r = nextBackoff(this.config, this.state, this.now(), this.random());
    this.state = r.state;
    return r.ms;
  }
}
