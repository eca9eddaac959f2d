// The text of the live dashboard's header and pipeline row, from a PipelineSnapshot (no ink here).
import { formatSeconds } from '../format-units.js';
import { escapeForTerminal } from '../terminal-escape.js';
import type { PipelineSnapshot, StageStats } from './pipeline-stats.js';

export interface DashboardInfo {
  context?: string;
  server: string;
  /** Resource(s) as the user named them: `pods`, `pods,deployments.apps`. */
  resources: string;
  namespace?: string;
  selector?: string;
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

export const HELP_LINES = [
  'q, Ctrl-C   quit (the summary prints after the screen is restored)',
  '/           filter the activity: a key substring, stage=watch, op=MODIFIED (terms combine); Enter applies, Esc clears',
  'space       pause / resume the activity pane (counting goes on)',
  '?           this help (any key closes it)',
];
