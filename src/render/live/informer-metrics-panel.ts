// The --live panel of informer metrics under client-go 1.36's names: the values the line after the exit summary prints
// (informer_queued_items with its peak, informer_processing_latency_seconds, informer_store_resource_version, which is
// SharedIndexInformer.LastStoreSyncResourceVersion), one row per informer, redrawn with every frame.
import { formatProcessingLatency, type InformerMetricsSnapshot } from '../../informer/informer-metrics.js';
import { formatColumns } from '../columns.js';
import type { PanelContent } from './dashboard-screen.js';

/** What the panel reads: an informer's name and its metrics now. */
export interface MetricsSource {
  readonly name: string;
  metrics(): InformerMetricsSnapshot;
}

const HEADERS = ['INFORMER', 'QUEUED', 'PEAK', 'PROCESSING LATENCY', 'STORE RV'];

export function informerMetricsPanel(informers: readonly MetricsSource[]): PanelContent {
  const title = 'informer metrics (client-go 1.36: informer_queued_items, informer_processing_latency_seconds, informer_store_resource_version)';
  if (informers.length === 0) return { title, lines: ['(starting)'] };
  const rows = informers.map((i) => {
    const m = i.metrics();
    return [i.name, String(m.queuedItems), String(m.peakQueuedItems), formatProcessingLatency(m.processingLatency), m.storeResourceVersion || '-'];
  });
  return { title, lines: formatColumns(HEADERS, rows).replace(/\n$/, '').split('\n') };
}
