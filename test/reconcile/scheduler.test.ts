// The debounced scheduler in-process (kube-rs's debounce and hold-unless), with a fake clock and a recording queue:
// which reasons reach the workqueue, when, merged how, and what the trace says while they wait.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { RateLimitingQueue } from '../../src/informer/workqueue/rate-limiting-queue.js';
import { Scheduler } from '../../src/reconcile/scheduler.js';
import type { TriggerReason } from '../../src/reconcile/trigger.js';

const reason = (text: string): TriggerReason => ({ op: 'OnUpdate', reason: text, kubeRs: 'object updated', resource: 'configmaps', key: 'default/a' });

function setup(debounceMs: number, traced = true) {
  const clock = new FakeClock();
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  if (traced) tracer.subscribe((r) => records.push(r));
  const added: { key: string; reasons: string[] }[] = [];
  const processing = new Set<string>();
  const queue = {
    add: (key: string, ...reasons: TriggerReason[]) => void added.push({ key, reasons: reasons.map((r) => r.reason) }),
    isProcessing: (key: string) => processing.has(key),
  } as unknown as RateLimitingQueue<string>;
  const scheduler = new Scheduler(queue, { controller: 'ctl', debounceMs, clock, tracer });
  return { clock, records, added, processing, scheduler };
}

describe('scheduler: debounce and hold', () => {
  it('without a debounce window a trigger reaches the queue at once, alone', () => {
    const { scheduler, added, clock } = setup(0);
    scheduler.trigger('default/a', reason('one'));
    scheduler.trigger('default/a', reason('two'));
    expect(added).toEqual([{ key: 'default/a', reasons: ['one'] }, { key: 'default/a', reasons: ['two'] }]);
    expect(clock.pending()).toBe(0);
    expect(scheduler.isIdle()).toBe(true);
  });

  it('triggers for one key within the window make one add with every reason; each new trigger restarts the window', async () => {
    const { scheduler, added, clock, records } = setup(100);
    scheduler.trigger('default/a', reason('one'));
    await clock.advance(60);
    scheduler.trigger('default/a', reason('two'));
    scheduler.trigger('default/b', reason('other key'));
    expect(scheduler.debouncingCount).toBe(2);
    expect(scheduler.isIdle()).toBe(false);
    await clock.advance(60); // 120 ms after the first, 60 after the second: still waiting
    expect(added.filter((a) => a.key === 'default/a')).toEqual([]);
    expect(added).toEqual([]);
    await clock.advance(40);
    expect(added).toHaveLength(2);
    expect(added.find((a) => a.key === 'default/a')).toEqual({ key: 'default/a', reasons: ['one', 'two'] });
    expect(added.find((a) => a.key === 'default/b')).toEqual({ key: 'default/b', reasons: ['other key'] });
    expect(clock.pending()).toBe(0); // the restarted window's first timer was cancelled, not left to fire
    expect(scheduler.isIdle()).toBe(true);
    expect(scheduler.debouncingCount).toBe(0);
    // Each held trigger is traced while it waits: how many reasons it merged, and when the window ends.
    const debounced = records.filter((r) => r.op === 'debounce' && r.key === 'default/a');
    expect(debounced.map((r) => [r.merged, r.releaseAt, r.time, r.controller, r.stage, (r.reason as TriggerReason).reason])).toEqual([
      [1, 1_700_000_000_100, 1_700_000_000_000, 'ctl', 'reconcile', 'one'],
      [2, 1_700_000_000_160, 1_700_000_000_060, 'ctl', 'reconcile', 'two'],
    ]);
  });

  it('a released key that is running is traced as held (client-go keeps it dirty until the run ends)', () => {
    const { scheduler, added, processing, records, clock } = setup(0);
    processing.add('default/a');
    scheduler.trigger('default/a', reason('while running'));
    scheduler.trigger('default/b', reason('idle key'));
    expect(added.map((a) => a.key)).toEqual(['default/a', 'default/b']);
    const held = records.filter((r) => r.op === 'held');
    expect(held).toHaveLength(1);
    expect(held).toMatchObject([{ time: clock.now(), stage: 'reconcile', op: 'held', key: 'default/a', controller: 'ctl', reasons: [reason('while running')] }]);
  });

  it('nothing is traced without a subscriber', async () => {
    const { scheduler, records, added, clock } = setup(10, false);
    scheduler.trigger('default/a', reason('one'));
    await clock.advance(10);
    expect(added).toHaveLength(1);
    expect(records).toEqual([]);
  });

  it('stop cancels the waiting windows and ignores later triggers', async () => {
    const { scheduler, added, clock } = setup(100);
    scheduler.trigger('default/a', reason('one'));
    scheduler.stop();
    expect(clock.pending()).toBe(0);
    expect(scheduler.isIdle()).toBe(true);
    scheduler.trigger('default/a', reason('after stop'));
    await clock.advance(200);
    expect(added).toEqual([]);
    expect(scheduler.debouncingCount).toBe(0);
  });
});
