// The reconcile panel of --live shows the ready keys per priority from the trace alone; they must match what the
// priority queue itself reports (depthByPriority, the summary's numbers).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Tracer } from '../../src/informer/trace.js';
import { LOW_PRIORITY, PriorityQueue } from '../../src/informer/workqueue/priority-queue.js';
import { ReconcileStats } from '../../src/render/live/reconcile-panel.js';

describe('reconcile --live: ready keys per priority', () => {
  it('follows adds, raised priorities, gets, re-adds while running and requeues as the queue counts them', () => {
    const tracer = new Tracer();
    const stats = new ReconcileStats();
    tracer.subscribe(stats.add);
    const q = new PriorityQueue<string>({ clock: new FakeClock(), tracer, name: 'pods' });
    const same = () => expect(stats.readyByPriority()).toEqual(q.depthByPriority().filter(([, n]) => n > 0));

    q.addWithOpts({ priority: LOW_PRIORITY }, 'ns/old-1');
    q.addWithOpts({ priority: LOW_PRIORITY }, 'ns/old-2');
    q.addWithOpts({}, 'ns/new');
    same();
    expect(stats.readyByPriority()).toEqual([[0, 1], [LOW_PRIORITY, 2]]);
    expect(stats.lines()).toContain('ready by priority  0=1  -100=2');

    q.addWithOpts({ priority: 10 }, 'ns/old-1'); // an update raises a waiting key's priority
    same();
    const first = q.tryGet()!.item!;
    expect(first).toBe('ns/old-1');
    same();
    q.addWithOpts({ priority: LOW_PRIORITY }, 'ns/old-1'); // added again while it runs: ready only once done
    same();
    q.done('ns/old-1');
    same();
    expect(stats.readyByPriority()).toEqual([[0, 1], [LOW_PRIORITY, 2]]);
    while (q.tryGet()?.item !== undefined) same();
    expect(stats.lines()).toContain('ready by priority  none');
  });

  it('shows no priority line for a plain FIFO workqueue', () => {
    const stats = new ReconcileStats();
    stats.add({ time: 0, stage: 'workqueue', op: 'add', key: 'ns/a', controller: 'c', queue: 'c', depth: 1 });
    expect(stats.lines().some((l) => l.startsWith('ready by priority'))).toBe(false);
  });
});
