// The text of the live dashboard's header and pipeline row, from a PipelineSnapshot (no ink here).
import { formatSeconds } from '../format-units.js';
import { STAGES, type Stage } from '../../informer/trace.js';
import { escapeForTerminal } from '../terminal-escape.js';
import type { PipelineSnapshot, StageStats } from './pipeline-stats.js';
import { sparkline } from './sparkline.js';

export interface DashboardInfo {
  context?: string;
  server: string;
  /** Resource(s) as the user named them: `pods`, `pods,deployments.apps`. */
  resources: string;
  namespace?: string;
  selector?: string;
  /**
   * The second line's counters when the informer's own would describe kwatch rather than the run (reconcile --exec,
   * proxy: the controller's requests, events, relists and bytes on the wire, not the fork's mirror informers).
   */
  state?: () => string;
}

/** Two header lines: what is watched, then the informer's state and counters. */
export function headerLines(info: DashboardInfo, s: PipelineSnapshot): string[] {
  const what = [
    info.context !== undefined ? `context ${info.context}` : undefined,
    `server ${info.server}`,
    `resource ${info.resources}`,
    info.namespace !== undefined ? `namespace ${info.namespace}` : undefined,
    info.selector ? `selector ${info.selector}` : undefined,
  ].filter(Boolean);
  if (info.state) return [escapeForTerminal(what.join('  ')), escapeForTerminal(`up ${formatSeconds(s.uptimeMs)}  ${info.state()}`)];
  const state = [
    s.connection,
    `rv ${s.lastRv ?? '-'}`,
    `up ${formatSeconds(s.uptimeMs)}`,
    `reconnects ${s.reconnects}`,
    `relists ${s.relists}`,
    `expired ${s.expired}`,
  ];
  return [escapeForTerminal(what.join('  ')), escapeForTerminal(state.join('  '))];
}

export interface StageCell {
  stage: string;
  lines: string[];
  bottleneck: boolean;
}

/** One cell per stage: name, rate, total and (for queues) depth. */
export function stageCells(s: PipelineSnapshot): StageCell[] {
  return s.stages.map((st: StageStats) => ({
    stage: st.stage,
    lines: [st.stage, `${formatRate(st.rate)}/s`, `total ${st.total}`, st.depth !== undefined ? `depth ${st.depth}` : ''],
    bottleneck: st.bottleneck,
  }));
}

export function formatRate(rate: number): string {
  if (rate === 0) return '0';
  return rate < 10 ? rate.toFixed(1) : String(Math.round(rate));
}

/** The two sparklines: watch events/s and workqueue depth, one value per second over the last minute. */
export function sparkLines(s: PipelineSnapshot): string[] {
  const line = (label: string, values: number[], unit: string) => {
    // The current second is still filling: "last" is the one before it.
    const last = values.at(-2) ?? 0;
    const max = Math.max(0, ...values);
    return `${label.padEnd(16)}${sparkline(values)}  last ${formatRate(last)}${unit}  max ${formatRate(max)}${unit}`;
  };
  return [line('watch events/s', s.watchPerSecond, '/s'), line('workqueue depth', s.workqueueDepth, '')];
}

/** Which stages the activity pane shows, by the key that toggles each; a hidden one in parentheses (also in a snapshot). */
export function stageToggleLine(shown: ReadonlySet<Stage>): { text: string; on: boolean }[] {
  return STAGES.map((stage, i) => (shown.has(stage) ? { text: `${i + 1} ${stage}`, on: true } : { text: `(${i + 1} ${stage})`, on: false }));
}

export const HELP_LINES = [
  'q, Ctrl-C   quit (the summary prints after the screen is restored)',
  '/           filter the activity: a key substring, stage=watch, op=MODIFIED (terms combine); Enter applies, Esc clears',
  'space       pause / resume the activity pane (counting goes on)',
  '↑ ↓ Enter   select an activity line and follow its key: its whole history across the stages; Esc goes back',
  '1–8         hide or show a stage in the activity pane (http reflector watch fifo indexer handler workqueue reconcile)',
  's           save the screen as plain text (kwatch-snapshot-<time>.txt); the status line says where',
  '?           this help (any key closes it)',
];
