// The sim's churn starts with the first watch a client opens, so what a seeded run shows does not depend on how long
// the client took to get there (a loaded machine, a user who starts `kwatch sim` and connects later).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { http, until, watch } from './sim-helpers.js';

const WORKLOAD = { port: 0, seed: 5, nodes: 2, pods: 20, churn: 100 };

describe('the sim churn', { timeout: 120_000 }, () => {
  it('writes nothing until a client watches, then churns', async () => {
    const sim = await startSimServer(WORKLOAD);
    try {
      const populated = sim.api.currentRevision();
      // At 100 changes a second, a churn that started with the server would have written dozens by now.
      await sleep(700);
      expect((await http(sim.url, '/api/v1/pods')).status).toBe(200);
      await sleep(300);
      expect(sim.api.currentRevision()).toBe(populated);
      // Any watch starts it, whatever it watches.
      const w = await watch(sim.url, `/api/v1/namespaces/kube-system/configmaps?watch=1&resourceVersion=${populated}`);
      await until(() => sim.api.currentRevision() > populated + 10, 60_000);
      w.close();
    } finally {
      await sim.close();
    }
  });

  it('shows a watch opened 1.5 s late the same events as one opened at once', async () => {
    /** The first 25 events of a watch on `default`'s pods (its initial ADDED, then the churn), opened `delayMs` after the sim started. */
    async function firstEvents(delayMs: number): Promise<string[]> {
      const sim = await startSimServer(WORKLOAD);
      try {
        await sleep(delayMs);
        const w = await watch(sim.url, '/api/v1/namespaces/default/pods?watch=1');
        const events = await w.waitFor(25, 60_000);
        w.close();
        // Not the resourceVersions: a node heartbeat in the same second as the last one is a no-op write, which takes
        // no revision (as etcd's), so where the wall clock's seconds fall can shift the numbers by one.
        return events.map((e) => `${e.type} ${e.object.metadata.name}`);
      } finally {
        await sim.close();
      }
    }
    const [atOnce, late] = await Promise.all([firstEvents(0), firstEvents(1500)]);
    expect(atOnce.filter((e) => !e.startsWith('ADDED ')).length).toBeGreaterThan(3);
    expect(late).toEqual(atOnce);
  });
});
