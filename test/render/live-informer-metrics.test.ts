// The --live informer metrics panel: one row per informer with the values the line after the exit summary prints.
import { describe, expect, it } from 'vitest';
import { formatInformerMetrics, type InformerMetricsSnapshot } from '../../src/informer/informer-metrics.js';
import { informerMetricsPanel } from '../../src/render/live/informer-metrics-panel.js';

const snapshot = (over: Partial<InformerMetricsSnapshot>): InformerMetricsSnapshot => ({
  queuedItems: 0,
  peakQueuedItems: 0,
  processingLatency: { samples: 0 },
  storeResourceVersion: '',
  ...over,
});

describe('informer metrics panel (--live)', () => {
  it('a row per informer: queued, peak, processing latency and store resourceVersion, as the summary line has them', () => {
    const pods = snapshot({ queuedItems: 3, peakQueuedItems: 40, processingLatency: { samples: 12, p50Seconds: 0.0004, p99Seconds: 0.005, maxSeconds: 0.0071 }, storeResourceVersion: '182' });
    const nodes = snapshot({});
    const panel = informerMetricsPanel([{ name: 'pods', metrics: () => pods }, { name: 'nodes', metrics: () => nodes }]);
    expect(panel.title).toContain('client-go 1.36');
    expect(panel.lines[0]).toMatch(/^INFORMER\s+QUEUED\s+PEAK\s+PROCESSING LATENCY\s+STORE RV$/);
    expect(panel.lines[1]).toMatch(/^pods\s+3\s+40\s+p50 <1ms p99 ≤5ms max 7ms \(12 sampled pops\)\s+182$/);
    expect(panel.lines[2]).toMatch(/^nodes\s+0\s+0\s+no samples\s+-$/);
    // The summary line says the same.
    expect(formatInformerMetrics('pods', pods)).toBe('informer pods: informer_queued_items 3 (peak 40), informer_processing_latency_seconds p50 <1ms p99 ≤5ms max 7ms (12 sampled pops), informer_store_resource_version 182');
  });

  it('reads the metrics anew on every frame, and says so before the informers exist', () => {
    let rv = '5';
    const informers: { name: string; metrics: () => InformerMetricsSnapshot }[] = [];
    expect(informerMetricsPanel(informers).lines).toEqual(['(starting)']);
    informers.push({ name: 'pods', metrics: () => snapshot({ storeResourceVersion: rv }) });
    expect(informerMetricsPanel(informers).lines[1]).toMatch(/\s5$/);
    rv = '9';
    expect(informerMetricsPanel(informers).lines[1]).toMatch(/\s9$/);
  });
});
