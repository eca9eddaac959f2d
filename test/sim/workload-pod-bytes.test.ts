// The workload generator's pods, byte for byte: what a fixed seed populates (and a few seconds of churn) must not
// change when the way the generator builds them does. The hash was taken from the generator before its pods went
// through the defaulting code (src/sim/defaults/pod.ts) instead of carrying their own copy of those defaults, and
// retaken when unscheduled pods began to count the real nodes (`0/6 nodes are available`, was a fixed `0/3`): the
// bytes were checked to differ by that message only. The churned hash was retaken when pending pods began to start by
// the churn's own schedule instead of the wall clock (src/sim/workload.ts, scheduleMs): a pod due within a tick is now
// promoted there, not at the next tick's first write, so the seeded picks after it land elsewhere; and again when the
// churn's timestamps began to follow that schedule (from the second after populate's) instead of each tick's wall
// clock. The populated bytes did not change.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SimStore } from '../../src/sim/store.js';
import { WorkloadGenerator } from '../../src/sim/workload.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const START = Date.parse('2025-06-01T12:00:00Z');

/** The stored pods' JSON, with each random uid replaced by the order it first appears in. */
function podBytes(store: SimStore): string {
  const json = JSON.stringify(store.list(PODS));
  const uids = new Map<string, string>();
  return json.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (uid) => {
    if (!uids.has(uid)) uids.set(uid, `uid-${uids.size}`);
    return uids.get(uid)!;
  });
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('the workload generator\'s pods', () => {
  it('are the same bytes for the same seed: populated, then after churn', () => {
    let now = START;
    let tick: (() => void) | undefined;
    const store = new SimStore({ now: () => now });
    const gen = new WorkloadGenerator(store, { seed: 7, nodes: 6, pods: 400, churn: 200, managedFields: true }, {
      now: () => now, setInterval: (fn) => { tick = fn; return 1; }, clearInterval: () => undefined,
    });
    gen.populate();
    const populated = podBytes(store);
    expect(store.list(PODS)).toHaveLength(400);
    gen.start();
    for (let i = 0; i < 20; i++) { now += 100; tick!(); }
    gen.stop();
    const churned = podBytes(store);
    expect(churned).not.toBe(populated);
    expect({ populated: sha(populated), churned: sha(churned) }).toEqual({ populated: 'd8cca0c6852d0e685cc1fca500a1f13ded86a527639116d86ac4dd33074bd628', churned: 'b4b6f5b16949a111f8fb1fa5cb5475808b20d790df7bf0b87b6c0f500b166254' });
  });
});
