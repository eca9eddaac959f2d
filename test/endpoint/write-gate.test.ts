// The endpoint's write gate (--qps/--burst/--max-writes) on a clock the test moves: the bucket, the 429's
// Retry-After, and the hard stop at --max-writes. Before this file only e2e runs reached it (mutation testing,
// issue 39: none of its mutants was killed by a test Stryker runs).
import { describe, expect, it } from 'vitest';
import { WriteGate } from '../../src/endpoint/write-gate.js';

const admitMany = (gate: WriteGate, n: number, now: number) => Array.from({ length: n }, () => gate.admit(now).kind);

describe('WriteGate', () => {
  it('passes a full burst at once, then throttles with a Retry-After of at least one second', () => {
    const gate = new WriteGate({ qps: 2, burst: 3, maxWrites: 100 }, 1_000);
    expect(admitMany(gate, 3, 1_000)).toEqual(['pass', 'pass', 'pass']);
    expect(gate.count).toBe(3);
    expect(gate.admit(1_000)).toEqual({ kind: 'throttled', retryAfterSeconds: 1 });
    // A throttled write is not counted.
    expect(gate.count).toBe(3);
  });

  it('refills at --qps tokens a second: half a second at qps 2 earns exactly one write', () => {
    const gate = new WriteGate({ qps: 2, burst: 1, maxWrites: 100 }, 0);
    expect(gate.admit(0).kind).toBe('pass');
    expect(gate.admit(499).kind).toBe('throttled');
    expect(gate.admit(500).kind).toBe('pass');
    expect(gate.admit(500).kind).toBe('throttled');
  });

  it('rounds Retry-After up to the seconds the next token needs at a low --qps', () => {
    const gate = new WriteGate({ qps: 0.25, burst: 1, maxWrites: 100 }, 0);
    expect(gate.admit(0).kind).toBe('pass');
    // 0 tokens left, 0.25 a second: the next one is 4 s away.
    expect(gate.admit(0)).toEqual({ kind: 'throttled', retryAfterSeconds: 4 });
    // One second later 0.25 has come back: 3 s to go.
    expect(gate.admit(1_000)).toEqual({ kind: 'throttled', retryAfterSeconds: 3 });
  });

  it('caps the bucket at --burst however long the gate was idle', () => {
    const gate = new WriteGate({ qps: 10, burst: 2, maxWrites: 100 }, 0);
    expect(admitMany(gate, 3, 3_600_000)).toEqual(['pass', 'pass', 'throttled']);
  });

  it('refuses every write past --max-writes, also when the bucket has tokens', () => {
    const gate = new WriteGate({ qps: 1_000, burst: 10, maxWrites: 2 }, 0);
    expect(admitMany(gate, 2, 0)).toEqual(['pass', 'pass']);
    expect(gate.admit(60_000)).toEqual({ kind: 'over', max: 2 });
    expect(gate.admit(120_000)).toEqual({ kind: 'over', max: 2 });
    expect(gate.count).toBe(2);
  });
});
