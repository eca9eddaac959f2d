// What every --live command shares: the aggregators that subscribe to the trace (stage stats, recent
// activity, per-key history, the exit summary), the dashboard drawn from them, and `s` snapshots.
import type { Stage, TraceRecord, Tracer } from '../informer/trace.js';
import type { Dashboard } from '../render/live/dashboard.js';
import type { PanelContent } from '../render/live/dashboard-screen.js';
import type { DashboardInfo } from '../render/live/dashboard-text.js';
import type { StageSelection } from '../render/stage-filter.js';
import { TraceSummary } from '../render/summary.js';
import { saveSnapshot } from './snapshot-file.js';

export interface LiveSessionOptions {
  tracer: Tracer;
  info: DashboardInfo;
  stages?: StageSelection;
  /** The activity pane's stages when --stages is not given. */
  defaultStages?: ReadonlySet<Stage>;
  /** --key: follow this key from the start. */
  follow?: string;
  snapshotDir?: string;
  diff?: 'changed' | 'all';
  showSecrets?: boolean;
  /** A panel under the pipeline, with the listener that feeds it (subscribed with the others). */
  panel?: { content: () => PanelContent; add?: (r: TraceRecord) => void };
  onQuit: () => void;
  stdout: NodeJS.WriteStream;
  /** Keys; default process.stdin. */
  stdin?: NodeJS.ReadStream;
}

export interface LiveSession {
  dashboard: Dashboard;
  summary: TraceSummary;
  /** Unsubscribes and restores the screen; idempotent. */
  stop(): void;
}

export async function startLiveSession(o: LiveSessionOptions): Promise<LiveSession> {
  const [{ PipelineStats }, { ActivityLog }, { KeyHistory }, { startDashboard }] = await Promise.all([
    import('../render/live/pipeline-stats.js'),
    import('../render/live/activity-log.js'),
    import('../render/live/key-history.js'),
    import('../render/live/dashboard.js'),
  ]);
  const summary = new TraceSummary({ startedAt: Date.now(), now: Date.now });
  const stats = new PipelineStats();
  const activity = new ActivityLog({ stages: o.stages, defaultStages: o.defaultStages });
  const history = new KeyHistory({ showSecrets: o.showSecrets, diffAll: o.diff === 'all' });
  const panelAdd = o.panel?.add;
  const unsubscribe = o.tracer.subscribe((r: TraceRecord) => {
    summary.add(r);
    stats.add(r);
    activity.add(r);
    history.add(r);
    panelAdd?.(r);
  });
  const dashboard = await startDashboard({
    info: o.info,
    stats,
    activity,
    history,
    follow: o.follow,
    panel: o.panel?.content,
    saveSnapshot: (text) => saveSnapshot(text, o.snapshotDir),
    stdout: o.stdout,
    stdin: o.stdin,
    onQuit: o.onQuit,
  });
  let stopped = false;
  return {
    dashboard,
    summary,
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      dashboard.stop();
    },
  };
}
