// The informer core over real HTTP against the embedded server with its fault injection: thousands of
// writes while the sim drops and cuts watches, answers 429/500 and compacts its history. At the end the
// cache equals the server, every handler saw every change in resourceVersion order exactly once (changes
// made while the client was cut off may collapse into one relist), and what was deleted while the client
// was disconnected arrives as a DeletedFinalStateUnknown tombstone.
import { describe, it } from 'vitest';
import { Controller, SharedIndexInformer, Tracer, type QueueReason, type TraceRecord } from '../../src/informer/index.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { HttpListerWatcher } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { CheckingHandler, PodWriter, keyOf, normalise, quickWaits, rvOf, sameState, seeded, stateDiff, until } from './helpers.js';

// Both FIFOs run at once, each against its own server. The informer's clock is the real one with its waits cut to a
// tenth (quickWaits): on the real clock most of the time went to backoffs and Retry-After sleeps (0.8 s, 1.6 s, three
// 1 s Retry-Afters); the faults, their order and every count asserted below are the same. The bounds are generous so
// that a loaded machine only makes it slower.
describe.concurrent.each(['delta', 'real'] as const)('SharedIndexInformer (%s FIFO) against kwatch sim with faults', { timeout: 240_000 }, (fifo) => {
  it('ends with the server state, delivering every change once and in order, and tombstones for deletes it missed', async ({ expect }) => {
    const started = Date.now();
    const sim: SimServer = await startSimServer({ port: 0, churn: 0, historyEvents: 100_000, bookmarkIntervalMs: 250 });
    const writer = new PodWriter(sim.api, seeded(fifo === 'delta' ? 7 : 11), ['it-a', 'it-b', 'it-c']);
    for (let i = 0; i < 300; i++) writer.create(true);
    writer.burst(300, 400, true); // before the informer starts: collapsed into its initial list

    // Count what the reflector went through (only its own records: cheap).
    const tracer = new Tracer();
    const reflectorOps = new Map<string, number>();
    const closeReasons = new Map<string, number>();
    tracer.subscribe((r: TraceRecord) => {
      if (r.stage !== 'reflector') return;
      if (process.env.IT_DEBUG) console.log(JSON.stringify(r));
      reflectorOps.set(r.op, (reflectorOps.get(r.op) ?? 0) + 1);
      if (r.op === 'watch-close') closeReasons.set(String(r.reason), (closeReasons.get(String(r.reason)) ?? 0) + 1);
    });

    const conn: Connection = connectionFromUrl(sim.url);
    const stop = new AbortController();
    try {
      const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true });
      // random 0: backoffs take their minimum (0.8 s, 1.6 s, …, slept for a tenth of that) and watches ask for timeoutSeconds=300.
      const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'pods', expectedKind: 'Pod', fifo, pageSize: 50, tracer, random: () => 0, clock: quickWaits(0.1) });
      const early = new CheckingHandler('early');
      informer.addEventHandler(early, { name: 'early' });
      const reconciled = new Map<string, QueueReason[]>();
      const controller = new Controller({
        name: 'pods',
        workers: 3,
        tracer,
        reconcile: async (req) => {
          let list = reconciled.get(req.key);
          if (!list) reconciled.set(req.key, (list = []));
          list.push(...req.reasons);
        },
      });
      controller.watch(informer);

      const running = Promise.all([informer.run(stop.signal), controller.run(stop.signal)]);
      await informer.whenSynced(stop.signal);

      const deletedKeys = () => new Set([...writer.changes].filter(([, cs]) => cs.at(-1)!.type === 'DELETED').map(([k]) => k));
      const handlers: CheckingHandler[] = [early];
      const controllerView = () => {
        const out = new Map<string, number>();
        for (const [k, reasons] of reconciled) {
          const last = reasons.at(-1)!;
          if (last.op !== 'OnDelete') out.set(k, Number(last.rv));
        }
        return out;
      };
      const cacheView = () => new Map(informer.getStore().list().map((o) => [keyOf(o), rvOf(o)]));
      /** Everyone (cache, handlers, controller) has caught up with the server. */
      const caughtUp = (): boolean => {
        const server = writer.serverState();
        return sameState(cacheView(), server) && handlers.every((h) => sameState(h.view(), server)) && sameState(controllerView(), server) && controller.queue.len() === 0;
      };
      const settle = (what: string) =>
        until(caughtUp, 60_000, () => `${what}: cache ${stateDiff(cacheView(), writer.serverState())}; ${handlers.map((h) => `${h.name} ${stateDiff(h.view(), writer.serverState())}`).join('; ')}; controller ${stateDiff(controllerView(), writer.serverState())}`);
      await settle('initial sync');

      // A handler registered after start is first given the cached objects, then live changes.
      const lateFromRv = sim.api.currentRevision();
      const late = new CheckingHandler('late');
      informer.addEventHandler(late, { name: 'late' });
      handlers.push(late);
      await until(() => late.counts.initial === writer.serverState().size, 60_000, () => `late handler got ${late.counts.initial} initial adds`);
      expect(late.counts.add).toBe(late.counts.initial);

      // Phase A: faults the reflector survives by re-watching from its last resourceVersion, without a relist.
      // (Each watch must have delivered something before it is dropped: a watch closed within a second with
      // no events is a "very short watch", which client-go answers with a backoff and a relist.)
      writer.burst(100, 450);
      await settle('warm-up burst');
      const relistsBefore = informer.getReflector()!.stats.relists;
      const faults: [string, () => void][] = [
        ['drop (clean end)', () => sim.faults.dropWatches('end')],
        ['drop (socket reset)', () => sim.faults.dropWatches('reset')],
        ['cut mid-line', () => sim.faults.cutNextWatchEvents(1)],
        ['429 on re-watch', () => (sim.faults.failNext({ code: 429, verb: 'watch', retryAfterSeconds: 1 }), sim.faults.dropWatches('end'))],
        ['drop every 40 events', () => sim.faults.dropWatchesEvery({ events: 40 })],
        ['500 + Retry-After on re-watch', () => (sim.faults.dropWatchesEvery(null), sim.faults.failNext({ code: 500, verb: 'watch', retryAfterSeconds: 1 }), sim.faults.dropWatches('reset'))],
        ['cut mid-line again', () => sim.faults.cutNextWatchEvents(1)],
        ['drop (clean end) again', () => sim.faults.dropWatches('end')],
      ];
      for (const [name, inject] of faults) {
        if (process.env.IT_DEBUG) console.log('FAULT', name);
        inject();
        writer.burst(250, 450);
        await settle(`after ${name}`);
      }
      expect(informer.getReflector()!.stats.relists, 'no fault of phase A may cause a relist').toBe(relistsBefore);

      // Phase B: cut off, the client misses changes the history no longer holds → 410 → relist → tombstones.
      const missedDeletes: string[] = [];
      const disconnect = (extra: () => void) => {
        sim.faults.dropWatches('end'); // synchronous: nothing written below reaches the old watch
        for (let i = 0; i < 15; i++) missedDeletes.push(writer.delete(true)!);
        for (let i = 0; i < 30; i++) writer.update(true);
        for (let i = 0; i < 10; i++) writer.create(true);
        sim.faults.compact();
        extra();
      };
      disconnect(() => sim.faults.failNext({ code: 429, verb: 'list', retryAfterSeconds: 1 }));
      await settle('after compaction (relist with a 429 on its list)');
      writer.burst(250, 450);
      await settle('burst after the first relist');
      disconnect(() => sim.faults.failNext({ code: 500, verb: 'list' }));
      await settle('after compaction (relist failing with a 500 first)');
      writer.burst(400, 450);
      await settle('final burst');

      // --- Verdict ---
      const server = writer.serverState();
      // The cache equals the server's objects (minus managedFields, which the default transform strips).
      const cached = new Map(informer.getStore().list().map((o) => [keyOf(o), normalise(o)]));
      expect(cached.size).toBe(server.size);
      for (const o of sim.api.list({ group: '', version: 'v1', resource: 'pods' })) expect(cached.get(keyOf(o)), keyOf(o)).toEqual(normalise(o));
      expect(informer.getStore().list().some((o) => o.metadata.managedFields !== undefined)).toBe(false);

      for (const h of handlers) {
        expect(h.violations, h.name).toEqual([]);
        expect(stateDiff(h.view(), server), h.name).toBe('equal');
        // Every delivered (non-sync) resourceVersion is a change the server made to that key…
        for (const [key, ds] of h.deliveries) {
          const made = new Map((writer.changes.get(key) ?? []).map((c) => [c.rv, c.type]));
          for (const d of ds) {
            if (d.op === 'sync' || d.op === 'tombstone' || d.initial) continue;
            expect(made.has(d.rv), `${h.name}: ${key}@${d.rv} (${d.op}) was never written`).toBe(true);
            if (d.op === 'delete') expect(made.get(d.rv)).toBe('DELETED');
          }
        }
        // …and every change made while the client was connected was delivered (for `late`, from its start).
        const from = h === late ? lateFromRv : 0;
        let missing = 0;
        const examples: string[] = [];
        for (const [key, cs] of writer.changes) {
          const seen = new Set((h.deliveries.get(key) ?? []).filter((d) => d.op !== 'sync' && d.op !== 'tombstone').map((d) => d.rv));
          for (const c of cs) {
            if (c.rv <= from || writer.gapRvs.has(c.rv)) continue;
            if (!seen.has(c.rv) && missing++ < 5) examples.push(`${key}@${c.rv} ${c.type}`);
          }
        }
        expect(missing, `${h.name} missed changes: ${examples.join(', ')}`).toBe(0);
        // Deletes made while cut off arrive as tombstones (unless the key was written again since).
        for (const key of missedDeletes) {
          if (writer.changes.get(key)!.some((c) => !writer.gapRvs.has(c.rv))) continue; // deleted keys are never re-created, but be safe
          const last = h.deliveries.get(key)?.at(-1);
          expect(last?.op, `${h.name}: how ${key} (deleted while disconnected) was delivered`).toBe('tombstone');
        }
        expect(h.counts.tombstone, h.name).toBe(missedDeletes.length);
      }

      // The controller's handler saw the same stream: reasons per key in strictly increasing RV order, ending at the final state.
      for (const [key, reasons] of reconciled) {
        let last = 0;
        for (const r of reasons) {
          if (r.op === 'OnUpdate' && r.sync) continue;
          const rv = Number(r.rv);
          if (r.op === 'OnDelete' && r.tombstone) {
            expect(rv, `${key} tombstone`).toBeGreaterThanOrEqual(last);
            continue;
          }
          expect(rv, `controller reasons for ${key}: ${reasons.map((x) => `${x.op}@${x.rv}`).join(' ')}`).toBeGreaterThan(last);
          last = rv;
        }
      }
      for (const key of deletedKeys()) if (reconciled.has(key)) expect(reconciled.get(key)!.at(-1)!.op, key).toBe('OnDelete');

      // The faults really happened.
      const stats = informer.getReflector()!.stats;
      expect(stats.relists).toBeGreaterThanOrEqual(2);
      expect(stats.expired).toBeGreaterThanOrEqual(2);
      expect(reflectorOps.get('retry-after') ?? 0).toBeGreaterThanOrEqual(3); // 429 + 500 on watch, 429 on list
      expect(reflectorOps.get('list-error') ?? 0).toBeGreaterThanOrEqual(1); // the 500 on a list
      // A line cut by a destroyed socket surfaces as 'stream-cut' or 'connection' (both a normal close, as in client-go).
      expect((closeReasons.get('stream-cut') ?? 0) + (closeReasons.get('connection') ?? 0)).toBeGreaterThanOrEqual(3);
      expect(stats.reconnects).toBeGreaterThanOrEqual(10);
      expect(writer.writes).toBeGreaterThan(2500);
      expect(sim.faults.state()).toMatchObject({ cut: 2 });

      stop.abort();
      await running;
      console.log(`[${fifo}] ${writer.writes} writes, ${stats.reconnects} reconnects, ${stats.relists} relists, ${stats.expired} expired, ops ${JSON.stringify(Object.fromEntries(reflectorOps))}, close reasons ${JSON.stringify(Object.fromEntries(closeReasons))}, handler early ${JSON.stringify(early.counts)}, ${Date.now() - started} ms`);
    } finally {
      stop.abort();
      await conn.close();
      await sim.close();
    }
  }, 240_000);
});
