// The workload generator's pods, byte for byte: what a fixed seed populates (and a few seconds of churn) must not
// change when the way the generator builds them does. The hash was taken from the generator before its pods went
// through the defaulting code (src/sim/defaults/pod.ts) instead of carrying their own copy of those defaults.
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
    expect({ populated: sha(populated), churned: sha(churned) }).toEqual({ populated: '58a308e12eabedef45ae40ee33ec9a5bb79352fc9e32a269cd5df67eabade431', churned: '445b6e7474df8abc721c2f348867fade4edf1c6d56c8712726d91765ba6bdf37' });
  });
});
