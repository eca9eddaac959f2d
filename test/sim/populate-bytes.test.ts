// The sim's populate is tuned for speed (bench/); what it stores must not change. A fixed seed, clock and uid
// sequence give fixed bytes: this hash was taken on the code before the tuning, over every stored pod, node and
// ReplicaSet of a 2,000-pod cluster with managedFields.
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  let n = 0;
  let r = 0;
  return {
    ...real,
    randomUUID: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    randomInt: (a: number, b?: number) => (b === undefined ? r++ % a : a + (r++ % (b - a))),
  };
});

const { SimStore } = await import('../../src/sim/store.js');
const { WorkloadGenerator } = await import('../../src/sim/workload.js');

const CLOCK = Date.UTC(2026, 0, 2, 3, 4, 5);

describe('populate', () => {
  it('stores the same bytes for the same seed (2,000 pods, managedFields on)', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: CLOCK });
    try {
      const store = new SimStore({ historyEvents: 10_000, now: () => CLOCK });
      for (const ns of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) store.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: ns } });
      new WorkloadGenerator(store, { seed: 7, nodes: 2, pods: 2000, churn: 0, managedFields: true }, { now: () => CLOCK }).populate();
      const hash = createHash('sha256');
      let pods = 0;
      for (const resource of ['pods', 'nodes']) {
        for (const o of store.storedIn(store.resolve({ group: '', version: 'v1', resource }))) {
          hash.update(o.json);
          if (resource === 'pods') pods++;
        }
      }
      for (const o of store.storedIn(store.resolve({ group: 'apps', version: 'v1', resource: 'replicasets' }))) hash.update(o.json);
      expect(pods).toBe(2000);
      expect(hash.digest('hex')).toBe('a36aff1f6d72789b85f44d97f4e9200dc77cab89b5ac800017b24b55fcc5cb0e');
    } finally {
      vi.useRealTimers();
    }
  });
});
