import { describe, expect, it } from 'vitest';
import { formatInformerMetrics, LatencyHistogram } from '../../src/informer/informer-metrics.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { SharedIndexInformer } from '../../src/informer/shared-informer.js';
import { FakeClock } from '../../src/informer/clock.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (name: string): KubeObject => ({ metadata: { name, namespace: 'ns' } });

describe('LatencyHistogram (client-go 1.36 informer_processing_latency_seconds buckets)', () => {
  it('answers quantiles with the bucket bound, never above the exact max', () => {
    const h = new LatencyHistogram();
    expect(h.quantile(0.5)).toBeUndefined();
    for (let i = 0; i < 98; i++) h.observe(0.0004);
    h.observe(0.02);
    h.observe(3);
    expect(h.samples).toBe(100);
    expect(h.quantile(0.5)).toBe(0.001); // the 1 ms bucket's bound
    expect(h.quantile(0.99)).toBe(0.025);
    expect(h.quantile(1)).toBe(3); // the 5 s bucket, cut to the exact max
    expect(h.maxSeconds).toBe(3);
    h.observe(60);
    expect(h.quantile(1)).toBe(60); // past the last bucket: the max
  });
});

describe('SharedIndexInformer.metrics()', () => {
  it('reports informer_queued_items with its peak, sampled processing latency and the store resourceVersion (LastStoreSyncResourceVersion)', async () => {
    const lw = new FakeListerWatcher();
    lw.seed(Array.from({ length: 40 }, (_, i) => pod(`p${i}`)));
    const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'pods', clock: new FakeClock(), random: () => 0.5 });
    expect(informer.metrics()).toEqual({ queuedItems: 0, peakQueuedItems: 0, processingLatency: { samples: 0 }, storeResourceVersion: '' });
    const stop = new AbortController();
    const done = informer.run(stop.signal);
    await informer.whenSynced();
    await lw.waitForWatch(1);
    lw.bookmark();
    for (let i = 0; i < 50 && informer.lastStoreSyncResourceVersion() !== '1040'; i++) await new Promise((r) => setImmediate(r));
    const m = informer.metrics();
    expect(m.queuedItems).toBe(0);
    expect(m.peakQueuedItems).toBe(40);
    // The first pop and every 16th after it: pops 1, 17 and 33 of 40.
    expect(m.processingLatency.samples).toBe(3);
    expect(m.processingLatency.maxSeconds).toBeGreaterThanOrEqual(0);
    expect(m.storeResourceVersion).toBe('1040');
    expect(formatInformerMetrics('pods', m)).toMatch(/^informer pods: informer_queued_items 0 \(peak 40\), informer_processing_latency_seconds p50 [≤<]\S+ p99 [≤<]\S+ max \S+ \(3 sampled pops\), informer_store_resource_version 1040$/);
    stop.abort();
    await done;
  });
});
