// --qps/--burst and --max-writes on the wire: a controller process paces its own writes (client-go's token bucket
// lives in the client), so the endpoint answers a write past the rate as API Priority and Fairness does — 429 with
// Retry-After, which client-go retries — and refuses every write past --max-writes (the run then fails).
import type { WriteLimits } from '../reconcile/write-limiter.js';

export type GateAnswer = { kind: 'pass' } | { kind: 'throttled'; retryAfterSeconds: number } | { kind: 'over'; max: number };

export class WriteGate {
  private tokens: number;
  private last: number;
  private admitted = 0;

  constructor(private readonly limits: WriteLimits, now: number) {
    this.tokens = limits.burst;
    this.last = now;
  }

  get count(): number {
    return this.admitted;
  }

  admit(now: number): GateAnswer {
    if (this.admitted >= this.limits.maxWrites) return { kind: 'over', max: this.limits.maxWrites };
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.last) * this.limits.qps) / 1000);
    this.last = now;
    if (this.tokens < 1) return { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((1 - this.tokens) / this.limits.qps)) };
    this.tokens -= 1;
    this.admitted++;
    return { kind: 'pass' };
  }
}
