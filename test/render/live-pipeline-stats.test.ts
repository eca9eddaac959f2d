import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { PipelineStats } from '../../src/render/live/pipeline-stats.js';

/** A clock the test moves by hand. */
function clock(start = Date.UTC(2026, 0, 1, 10, 0, 0)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const rec = (r: Partial<TraceRecord> & Pick<TraceRecord, 'stage' | 'op'>, time = 0): TraceRecord => ({ time, ...r });

describe('PipelineStats', () => {
  it('counts what enters each stage and rates it over the last 5 s', () => {
    const c = clock();
    const s = new PipelineStats({ now: c.now });
    // 10 s of 20 watch events per second, each queued and handled once
    for (let sec = 0; sec < 10; sec++) {
      for (let i = 0; i < 20; i++) {
        s.add(rec({ stage: 'watch', op: 'MODIFIED', key: `ns/p${i}`, rv: String(sec * 100 + i) }));
        s.add(rec({ stage: 'fifo', op: 'Updated', key: `ns/p${i}`, depth: 1 }));
        s.add(rec({ stage: 'fifo', op: 'pop', key: `ns/p${i}`, depth: 0 }));
        s.add(rec({ stage: 'workqueue', op: 'add', key: `ns/p${i}`, depth: 1 }));
        s.add(rec({ stage: 'workqueue', op: 'get', key: `ns/p${i}`, depth: 0 }));
        c.advance(50);
      }
    }
    const snap = s.snapshot();
    const watch = snap.stages.find((x) => x.stage === 'watch')!;
    expect(watch.total).toBe(200);
    expect(watch.rate).toBeCloseTo(20, 0);
    const fifo = snap.stages.find((x) => x.stage === 'fifo')!;
    expect(fifo.total).toBe(200); // pops are not new items
    expect(fifo.depth).toBe(0);
    expect(snap.stages.find((x) => x.stage === 'workqueue')!.total).toBe(200);
    expect(snap.stages.find((x) => x.stage === 'watch')!.depth).toBeUndefined();
    expect(snap.lastRv).toBe('919');
    // 5 s of silence: the rate falls to zero, the total stays
    c.advance(6000);
    const later = s.snapshot().stages.find((x) => x.stage === 'watch')!;
    expect(later.rate).toBe(0);
    expect(later.total).toBe(200);
  });

  it('marks a stage whose depth grows second after second as the bottleneck, and clears it once it drains', () => {
    const c = clock();
    const s = new PipelineStats({ now: c.now });
    for (let sec = 1; sec <= 4; sec++) {
      s.add(rec({ stage: 'workqueue', op: 'add', key: `k${sec}`, depth: sec * 10 }));
      s.add(rec({ stage: 'fifo', op: 'Added', key: `k${sec}`, depth: 1 }));
      c.advance(1000);
    }
    let snap = s.snapshot();
    expect(snap.stages.find((x) => x.stage === 'workqueue')!.bottleneck).toBe(true);
    expect(snap.stages.find((x) => x.stage === 'fifo')!.bottleneck).toBe(false);
    s.add(rec({ stage: 'workqueue', op: 'get', key: 'k1', depth: 0 }));
    snap = s.snapshot();
    expect(snap.stages.find((x) => x.stage === 'workqueue')!.bottleneck).toBe(false);
  });

  it('follows the reflector: listing pages, watching, backoff countdown, 410 relist, reconnects', () => {
    const c = clock();
    const s = new PipelineStats({ now: c.now });
    const t0 = c.now();
    expect(s.snapshot().connection).toBe('connecting');
    s.add(rec({ stage: 'reflector', op: 'list-start', name: 'pods', rv: '0' }, t0));
    s.add(rec({ stage: 'reflector', op: 'list-page', name: 'pods', page: 1, items: 500, continue: true }, t0));
    expect(s.snapshot().connection).toBe('listing page 1');
    s.add(rec({ stage: 'reflector', op: 'list-page', name: 'pods', page: 2, items: 500, continue: true, remainingItemCount: 1200, resourceVersion: '155' }, t0));
    expect(s.snapshot().connection).toBe('listing page 2/5');
    expect(s.snapshot().stages.find((x) => x.stage === 'reflector')!.total).toBe(1000);
    expect(s.snapshot().lastRv).toBe('155');
    s.add(rec({ stage: 'reflector', op: 'listed', name: 'pods', rv: '155' }, t0));
    s.add(rec({ stage: 'reflector', op: 'watch-start', name: 'pods', rv: '155', conn: 1 }, t0));
    expect(s.snapshot().connection).toMatch(/^watching since \d\d:\d\d:\d\d$/);
    s.add(rec({ stage: 'reflector', op: 'watch-close', name: 'pods', reason: 'error' }, t0));
    s.add(rec({ stage: 'reflector', op: 'backoff', name: 'pods', ms: 3200 }, t0));
    expect(s.snapshot().connection).toBe('reconnecting in 3.2 s');
    c.advance(1000);
    expect(s.snapshot().connection).toBe('reconnecting in 2.2 s');
    s.add(rec({ stage: 'reflector', op: 'watch-start', name: 'pods', rv: '155', conn: 2 }, t0));
    s.add(rec({ stage: 'reflector', op: 'expired', name: 'pods', rv: '155' }, t0));
    s.add(rec({ stage: 'reflector', op: 'relist', name: 'pods', reason: 'expired' }, t0));
    s.add(rec({ stage: 'reflector', op: 'list-start', name: 'pods' }, t0));
    const snap = s.snapshot();
    expect(snap.connection).toBe('relisting after 410');
    expect(snap).toMatchObject({ reconnects: 1, relists: 1, expired: 1 });
  });

  it('shows why a relist happens when no 410 came first', () => {
    const s = new PipelineStats({ now: clock().now });
    s.add(rec({ stage: 'reflector', op: 'watch-start', name: 'pods' }));
    s.add(rec({ stage: 'reflector', op: 'relist', name: 'pods', reason: 'watch-list-fallback' }));
    expect(s.snapshot().connection).toBe('relisting after watch-list-fallback');
    s.add(rec({ stage: 'reflector', op: 'list-page', name: 'pods', page: 1, items: 3, continue: false }));
    expect(s.snapshot().connection).toBe('listing page 1/1');
  });

  it('names each reflector when several run', () => {
    const s = new PipelineStats({ now: clock().now });
    s.add(rec({ stage: 'reflector', op: 'list-start', name: 'pods' }));
    s.add(rec({ stage: 'reflector', op: 'listed', name: 'deployments.apps' }));
    expect(s.snapshot().connection).toBe('pods: listing; deployments.apps: listed');
  });
});
