import { afterEach, describe, expect, it, vi } from 'vitest';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FakeClock, realClock } from '../../src/informer/clock.js';
import { Indexer } from '../../src/informer/indexer.js';
import { RealFifo } from '../../src/informer/real-fifo.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { traceTime, traceTimeStale } from '../../src/informer/trace-time.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (name: string, rv = '1'): KubeObject => ({ kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv } });

function tracedFifo(clock?: FakeClock) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  return { records, fifo: new RealFifo({ knownObjects: new Indexer(), tracer, clock }) };
}

describe('trace record times (one clock reading per turn)', () => {
  afterEach(() => vi.restoreAllMocks());

  it("the records of one turn share one reading of the real clock (reading it is a system call, six times per traced event)", async () => {
    await nextTurn(); // a turn of its own: no reading left over from another test
    const reads = vi.spyOn(Date, 'now');
    const { records, fifo } = tracedFifo();
    for (let i = 0; i < 10; i++) fifo.add(pod(`p${i}`, String(i + 1)));
    for (let i = 0; i < 10; i++) fifo.tryPop(() => {});
    expect(records).toHaveLength(20);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(new Set(records.map((r) => r.time)).size).toBe(1);
    expect(records[0].time).toBe(reads.mock.results[0].value);
  });

  it('reads the clock again in the next turn, after user code ran, and at least every 32 records', async () => {
    await nextTurn();
    const reads = vi.spyOn(Date, 'now');
    traceTime({ now: () => 0 } as never); // another clock: never the shared reading
    expect(reads).toHaveBeenCalledTimes(0);
    const clock = realClock;
    traceTime(clock);
    traceTime(clock);
    expect(reads).toHaveBeenCalledTimes(1);
    traceTimeStale(); // a handler or a reconcile ran
    traceTime(clock);
    expect(reads).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 64; i++) traceTime(clock);
    expect(reads).toHaveBeenCalledTimes(4); // 1 + 31 shared, then 32 more: two readings for 64 records
    await nextTurn();
    traceTime(clock);
    expect(reads).toHaveBeenCalledTimes(5);
  });

  it("a test's fake clock is read for every record, so virtual time stays exact", async () => {
    const clock = new FakeClock(1_000);
    const { records, fifo } = tracedFifo(clock);
    fifo.add(pod('a'));
    await clock.advance(5);
    fifo.add(pod('b'));
    expect(records.map((r) => r.time)).toEqual([1_000, 1_005]);
  });
});
