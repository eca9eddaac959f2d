// The sim's churn starts with the first watch a client opens, so what a seeded run shows does not depend on how long
// the client took to get there (a loaded machine, a user who starts `kwatch sim` and connects later).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { SimStore } from '../../src/sim/store.js';
import { WorkloadGenerator } from '../../src/sim/workload.js';
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
      // Three times the churn of the test above: the 25 events come in a third of the time; both runs churn alike.
      const sim = await startSimServer({ ...WORKLOAD, churn: 300 });
      try {
        await sleep(delayMs);
        const w = await watch(sim.url, '/api/v1/namespaces/default/pods?watch=1');
        const events = await w.waitFor(25, 60_000);
        w.close();
        // Not the resourceVersions: an event loop stalled for over a second (a loaded machine) moves the churn's
        // timestamps on, which can change which node heartbeats are no-ops (no revision). The fake-clock test checks them.
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

describe('the sim churn on a fake clock', () => {
  /**
   * The first 400 commits (type, resource, key, resourceVersion) of a churn started `startAfterMs` after populate, whose
   * ticks then come `gaps` ms apart (cycled), and how many writes the generator made to get them.
   */
  function commits(startAfterMs: number, gaps: number[]): { log: string[]; writes: number } {
    const store = new SimStore();
    let t = Date.parse('2025-06-01T12:00:00.250Z');
    const gen = new WorkloadGenerator(store, { seed: 9, nodes: 3, pods: 30, churn: 20, managedFields: false }, { now: () => t, setInterval: () => 1, clearInterval: () => undefined });
    gen.populate();
    const log: string[] = [];
    store.onCommit((c) => log.push(`${c.type} ${c.resId} ${c.key} ${c.rv}`));
    const before = gen.writes.create + gen.writes.update + gen.writes.delete;
    t += startAfterMs;
    gen.start();
    for (let k = 0; log.length < 400 && k < 100_000; k++) {
      t += gaps[k % gaps.length];
      gen.tick();
    }
    gen.stop();
    return { log: log.slice(0, 400), writes: gen.writes.create + gen.writes.update + gen.writes.delete - before };
  }

  it('gives the same resourceVersions wherever the wall clock\'s seconds fall and however late the first tick comes', () => {
    const soon = commits(300, [100]);
    // Some writes were no-ops (a node heartbeat in the same second as its last): they took no revision.
    expect(soon.writes).toBeGreaterThan(soon.log.length);
    expect(commits(2_700, [100]).log).toEqual(soon.log);
    expect(commits(60_450, [100]).log).toEqual(soon.log);
    expect(commits(300, [4_000, ...Array(300).fill(100)]).log).toEqual(soon.log);
    expect(commits(1_100, [1_000]).log).toEqual(soon.log);
  });
});
