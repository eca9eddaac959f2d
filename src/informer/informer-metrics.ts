// The informer metrics client-go 1.36 publishes (k8s.io/component-base v0.36 metrics/prometheus/clientgo/fifo, the
// InformerMetricsProvider of tools/cache): informer_queued_items (the FIFO's depth), informer_processing_latency_seconds
// (the time to process what one pop took out of the FIFO) and informer_store_resource_version (the store's
// resourceVersion, what SharedIndexInformer.LastStoreSyncResourceVersion returns). kwatch keeps them per informer
// for the summary and --live. Latency is timed on one pop in LATENCY_SAMPLE_EVERY, so the hot path pays a counter.

/** client-go's bucket bounds for informer_processing_latency_seconds. */
export const PROCESSING_LATENCY_BUCKETS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One pop in this many is timed. */
export const LATENCY_SAMPLE_EVERY = 16;

export interface InformerMetricsSnapshot {
  /** informer_queued_items: entries (RealFIFO) or keys (DeltaFIFO) queued now. */
  queuedItems: number;
  /** The most queued at once, seen at a pop. */
  peakQueuedItems: number;
  /** informer_processing_latency_seconds, over the sampled pops. */
  processingLatency: { samples: number; p50Seconds?: number; p99Seconds?: number; maxSeconds?: number };
  /** informer_store_resource_version: the store's resourceVersion (LastStoreSyncResourceVersion); "" before the first list. */
  storeResourceVersion: string;
}

/** A histogram with client-go's buckets, plus the exact maximum. */
export class LatencyHistogram {
  private readonly counts = new Array<number>(PROCESSING_LATENCY_BUCKETS_SECONDS.length + 1).fill(0);
  private n = 0;
  private max = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < PROCESSING_LATENCY_BUCKETS_SECONDS.length && seconds > PROCESSING_LATENCY_BUCKETS_SECONDS[i]) i++;
    this.counts[i]++;
    this.n++;
    if (seconds > this.max) this.max = seconds;
  }

  get samples(): number {
    return this.n;
  }

  /** The upper bound of the bucket holding quantile q (Prometheus's histogram_quantile, without interpolation); the max for the last bucket. */
  quantile(q: number): number | undefined {
    if (this.n === 0) return undefined;
    const rank = Math.ceil(q * this.n);
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= rank) return i < PROCESSING_LATENCY_BUCKETS_SECONDS.length ? Math.min(PROCESSING_LATENCY_BUCKETS_SECONDS[i], this.max) : this.max;
    }
    return this.max;
  }

  get maxSeconds(): number | undefined {
    return this.n === 0 ? undefined : this.max;
  }
}

/** The processing latency as the summary line and the --live panel print it: "p50 ≤1ms p99 ≤5ms max 7ms (12 sampled pops)". */
export function formatProcessingLatency(l: InformerMetricsSnapshot['processingLatency']): string {
  const ms = (s: number | undefined) => (s === undefined ? '-' : s < 0.001 ? '<1ms' : `${Math.round(s * 1000)}ms`);
  // A quantile is a bucket's upper bound ("≤5ms"); under a millisecond it already reads as a bound ("<1ms").
  const bound = (s: number | undefined) => (s !== undefined && s < 0.001 ? ms(s) : `≤${ms(s)}`);
  return l.samples === 0 ? 'no samples' : `p50 ${bound(l.p50Seconds)} p99 ${bound(l.p99Seconds)} max ${ms(l.maxSeconds)} (${l.samples} sampled pops)`;
}

/** One summary line per informer, in client-go 1.36's metric names. */
export function formatInformerMetrics(name: string, m: InformerMetricsSnapshot): string {
  return `informer ${name}: informer_queued_items ${m.queuedItems} (peak ${m.peakQueuedItems}), informer_processing_latency_seconds ${formatProcessingLatency(m.processingLatency)}, informer_store_resource_version ${m.storeResourceVersion || '-'}`;
}
