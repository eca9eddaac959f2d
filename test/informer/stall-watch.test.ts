// Stalled watches: no event and no bookmark past the bound is one `stall` record per silence, saying when the last came.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { StallReportingListerWatcher } from '../../src/informer/stall-watch.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';

const pod = (name: string) => ({ metadata: { name, namespace: 'default' } });

describe('StallReportingListerWatcher', () => {
  it('says once per silence that the watch stalled, and when its last event came', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const server = new FakeListerWatcher();
    const lw = new StallReportingListerWatcher(server, { clock, tracer, stallAfterMs: 60_000, resource: 'pods' });
    const stream = await lw.watch({ resourceVersion: '1000', allowWatchBookmarks: true });
    const got: string[] = [];
    void (async () => {
      for await (const e of stream.batches!()) for (const ev of e) got.push(ev.type);
    })();
    await clock.advance(30_000);
    server.apply(pod('a'));
    await clock.advance(59_000);
    expect(records.filter((r) => r.op === 'stall')).toEqual([]);
    await clock.advance(1000);
    const stalls = () => records.filter((r) => r.op === 'stall');
    expect(stalls()).toHaveLength(1);
    expect(stalls()[0]).toMatchObject({ stage: 'reflector', resource: 'pods', silentMs: 60_000, lastEventAt: new Date(start + 30_000).toISOString(), rv: '1001' });
    await clock.advance(300_000);
    expect(stalls()).toHaveLength(1);
    server.bookmark();
    await clock.advance(60_000);
    expect(stalls()).toHaveLength(2);
    expect(got).toEqual(['ADDED', 'BOOKMARK']);
    stream.close();
    await clock.advance(600_000);
    expect(stalls()).toHaveLength(2);
  });

  it('a watch with events more often than the bound never stalls', async () => {
    const clock = new FakeClock();
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const server = new FakeListerWatcher();
    const stream = await new StallReportingListerWatcher(server, { clock, tracer, stallAfterMs: 60_000 }).watch({ resourceVersion: '1000' });
    void (async () => {
      for await (const _ of stream) void _;
    })();
    for (let i = 0; i < 10; i++) {
      await clock.advance(50_000);
      server.apply(pod(`p${i}`));
    }
    expect(records.filter((r) => r.op === 'stall')).toEqual([]);
    stream.close();
  });
});
