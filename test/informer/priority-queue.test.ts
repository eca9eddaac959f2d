// The priority queue as controller-runtime 0.23 runs it (pkg/controller/priorityqueue): one test per rule, on a fake clock.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { LOW_PRIORITY, PriorityQueue } from '../../src/informer/workqueue/priority-queue.js';
import { ItemExponentialFailureRateLimiter } from '../../src/informer/workqueue/rate-limiters.js';

function queue(opts: { starvedAfterMs?: number } = {}) {
  const clock = new FakeClock();
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const q = new PriorityQueue<string>({ clock, tracer, name: 'q', rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000), ...opts });
  /** Takes every ready item, marking each done. */
  const drain = () => {
    const out: string[] = [];
    for (let g = q.tryGet(); g && !g.shutdown; g = q.tryGet()) {
      out.push(g.item);
      q.done(g.item);
    }
    return out;
  };
  return { q, clock, records, drain };
}

describe('PriorityQueue', () => {
  it('hands out the highest priority first, and oldest first within a priority', () => {
    const { q, drain } = queue();
    q.addWithOpts({ priority: LOW_PRIORITY }, 'low-1');
    q.addWithOpts({}, 'zero-1');
    q.addWithOpts({ priority: 10 }, 'ten');
    q.addWithOpts({ priority: LOW_PRIORITY }, 'low-2');
    q.addWithOpts({}, 'zero-2');
    expect(drain()).toEqual(['ten', 'zero-1', 'zero-2', 'low-1', 'low-2']);
  });

  it('takes the priority from the reasons when AddOpts has none (what the triggers carry)', () => {
    const { q, drain } = queue();
    q.add('a', { op: 'OnAdd', priority: LOW_PRIORITY });
    q.add('b', { op: 'OnUpdate' });
    expect(q.priorityOf('a')).toBe(LOW_PRIORITY);
    expect(drain()).toEqual(['b', 'a']);
  });

  it('a key added twice waits once, with the higher priority (never lowered)', () => {
    const { q, drain } = queue();
    q.addWithOpts({ priority: LOW_PRIORITY }, 'a');
    q.addWithOpts({}, 'b');
    q.addWithOpts({ priority: 5 }, 'a');
    q.addWithOpts({ priority: LOW_PRIORITY }, 'a');
    expect(q.len()).toBe(2);
    expect(q.priorityOf('a')).toBe(5);
    expect(drain()).toEqual(['a', 'b']);
  });

  it('After: the key waits for its time; a ready add of the waiting key makes it ready now, once', async () => {
    const { q, clock, drain } = queue();
    q.addWithOpts({ after: 1000 }, 'a', { op: 'requeue-after' });
    expect(q.len()).toBe(0);
    await clock.advance(999);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(drain()).toEqual(['a']);
    q.addWithOpts({ after: 1000 }, 'b', { op: 'requeue-after' });
    q.addWithOpts({}, 'b', { op: 'OnUpdate' });
    const got = q.tryGet();
    expect(got).toMatchObject({ item: 'b', reasons: [{ op: 'requeue-after' }, { op: 'OnUpdate' }] });
    q.done('b');
    await clock.advance(2000);
    expect(q.len()).toBe(0);
  });

  it('a later time never delays a key that is already ready', () => {
    const { q } = queue();
    q.addWithOpts({}, 'a');
    q.addWithOpts({ after: 5000 }, 'a');
    expect(q.len()).toBe(1);
    expect(q.isWaiting('a')).toBe(false);
  });

  it('RateLimited: waits the limiter\'s delay, or After when that is shorter', async () => {
    const { q, clock } = queue();
    // The limiter says 5 ms, 10 ms, 20 ms … for "a".
    expect(q.addWithOpts({ rateLimited: true }, 'a')).toBe(5);
    await clock.advance(5);
    q.tryGet();
    q.done('a');
    expect(q.addWithOpts({ rateLimited: true, after: 3 }, 'a')).toBe(3);
    expect(q.addWithOpts({ rateLimited: true, after: 500 }, 'b')).toBe(5);
  });

  it('keys that waited for a time come after keys added ready, whatever their priority (controller-runtime\'s order)', async () => {
    const { q, clock, drain } = queue();
    q.addWithOpts({ after: 10, priority: 50 }, 'requeued');
    await clock.advance(10);
    q.addWithOpts({ priority: LOW_PRIORITY }, 'initial-list');
    expect(drain()).toEqual(['initial-list', 'requeued']);
  });

  it('a key re-added while it runs is handed out after done(), with its new priority', () => {
    const { q } = queue();
    q.addWithOpts({ priority: LOW_PRIORITY }, 'a');
    expect(q.tryGet()?.item).toBe('a');
    expect(q.priorityOf('a')).toBe(LOW_PRIORITY);
    q.addWithOpts({ priority: 3 }, 'a');
    q.addWithOpts({}, 'b');
    expect(q.tryGet()?.item).toBe('b');
    expect(q.tryGet()).toBeUndefined();
    q.done('a');
    expect(q.priorityOf('a')).toBe(3);
    expect(q.tryGet()?.item).toBe('a');
  });

  it('counts ready keys per priority, highest first', () => {
    const { q } = queue();
    for (const k of ['a', 'b', 'c']) q.addWithOpts({ priority: LOW_PRIORITY }, k);
    q.addWithOpts({}, 'd');
    q.addWithOpts({ after: 100 }, 'waiting');
    expect(q.depthByPriority()).toEqual([[0, 1], [LOW_PRIORITY, 3]]);
  });

  it('starved: a key ready past the bound while higher-priority keys keep being handed out, said once', async () => {
    const { q, clock, records } = queue({ starvedAfterMs: 60_000 });
    q.addWithOpts({ priority: LOW_PRIORITY }, 'old');
    for (let i = 0; i < 8; i++) {
      await clock.advance(10_000);
      q.addWithOpts({}, `new-${i}`);
      const g = q.tryGet();
      expect(g?.item).toBe(`new-${i}`);
      q.done(`new-${i}`);
    }
    const starved = records.filter((r) => r.op === 'starved');
    expect(starved).toHaveLength(1);
    expect(starved[0]).toMatchObject({ stage: 'workqueue', key: 'old', priority: LOW_PRIORITY, waitedMs: 70_000, overtakenBy: 'new-6', overtakenByPriority: 0 });
    expect(q.starved).toHaveLength(1);
  });

  it('not starved: a key waiting long with nothing of higher priority handed out, or handed out within the bound', async () => {
    const { q, clock, records } = queue({ starvedAfterMs: 60_000 });
    q.addWithOpts({ priority: LOW_PRIORITY }, 'a');
    q.addWithOpts({ priority: LOW_PRIORITY }, 'b');
    await clock.advance(120_000);
    q.tryGet();
    q.addWithOpts({}, 'c');
    await clock.advance(1000);
    expect(q.tryGet()?.item).toBe('c');
    // b waited 121 s but c is the only item that went ahead and it was added 1 s ago: b is starved by c.
    expect(records.filter((r) => r.op === 'starved').map((r) => r.key)).toEqual(['b']);
    const fresh = queue({ starvedAfterMs: 60_000 });
    fresh.q.addWithOpts({ priority: LOW_PRIORITY }, 'x');
    await fresh.clock.advance(30_000);
    fresh.q.addWithOpts({}, 'y');
    fresh.q.tryGet();
    expect(fresh.records.filter((r) => r.op === 'starved')).toEqual([]);
  });

  it('puts the priority on its workqueue records (add, get, done)', () => {
    const { q, records } = queue();
    q.addWithOpts({ priority: LOW_PRIORITY }, 'a');
    q.tryGet();
    q.done('a');
    expect(records.filter((r) => r.stage === 'workqueue').map((r) => [r.op, r.priority])).toEqual([
      ['add', LOW_PRIORITY],
      ['get', LOW_PRIORITY],
      ['done', LOW_PRIORITY],
    ]);
  });

  it('once shut down, a rate-limited add queues nothing but still counts the failure; other adds count nothing', () => {
    // controller-runtime's AddWithOpts calls rateLimiter.When for RateLimited before anything else.
    const { q, clock } = queue();
    q.shutDown();
    expect(q.addRateLimited('a')).toBeUndefined();
    expect(q.addWithOpts({ after: 10 }, 'a')).toBeUndefined();
    q.add('b');
    expect([q.numRequeues('a'), q.numRequeues('b'), q.len(), q.waitingCount(), clock.pending()]).toEqual([1, 0, 0, 0, 0]);
  });
});
