// The dashboard's screen as styled text lines, built from what the aggregators hold and the keys pressed
// (no ink here): ink draws these lines, and `s` saves their plain text.
import { PIPELINE_STAGES } from '../../informer/trace.js';
import { escapeForTerminal } from '../terminal-escape.js';
import type { ActivityView } from './activity-log.js';
import { HELP_LINES, headerLines, sparkLines, stageCells, stageToggleLine, type DashboardInfo } from './dashboard-text.js';
import type { PipelineSnapshot } from './pipeline-stats.js';

export interface Segment {
  text: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
  color?: 'red' | 'cyan' | 'yellow';
}
export type ScreenLine = Segment[];

/** A panel under the pipeline: the reconcile or the index panel. */
export interface PanelContent {
  title: string;
  lines: string[];
}

export interface ScreenInput {
  info: DashboardInfo;
  snap: PipelineSnapshot;
  columns: number;
  rows: number;
  panel?: PanelContent;
  /** What the lower pane shows. */
  pane:
    | { kind: 'help' }
    | { kind: 'activity'; view: ActivityView; selected?: number; shownStages: ReadonlySet<string> }
    | { kind: 'follow'; key: string; lines: string[]; scroll: number };
  status: string;
}

/** Rows of the screen that are not the lower pane, without a panel: header 2, gap, pipeline 4, sparklines 2, gap, status, one spare. */
const FIXED_ROWS = 12;

/** How many lines the lower pane has room for (its own title line excluded). */
export function paneRows(rows: number, panel?: PanelContent): number {
  return Math.max(3, rows - FIXED_ROWS - (panel ? panelRows(rows, panel) + 1 : 0) - 2);
}

function panelRows(rows: number, panel: PanelContent): number {
  return Math.min(panel.lines.length, Math.max(2, Math.floor(rows / 4))) + 1;
}

/** The whole screen, top to bottom. */
export function buildScreen(o: ScreenInput): ScreenLine[] {
  const out: ScreenLine[] = [];
  const plain = (text: string, style: Omit<Segment, 'text'> = {}): ScreenLine => [{ text, ...style }];
  headerLines(o.info, o.snap).forEach((line, i) => out.push(plain(line, { bold: i === 0 })));
  out.push(plain(''));
  const cellWidth = Math.max(10, Math.floor(o.columns / PIPELINE_STAGES.length));
  const cells = stageCells(o.snap);
  for (let row = 0; row < 4; row++) {
    out.push(
      cells.map((c) => ({
        text: fit(c.lines[row] ?? '', cellWidth - 1) + ' ',
        bold: row === 0,
        color: c.bottleneck ? 'red' : row === 0 ? 'cyan' : undefined,
        inverse: c.bottleneck && row === 0,
      })),
    );
  }
  for (const line of sparkLines(o.snap)) out.push(plain(line));
  out.push(plain(''));
  if (o.panel) {
    const n = panelRows(o.rows, o.panel) - 1;
    out.push(plain(escapeForTerminal(o.panel.title), { bold: true }));
    for (const line of o.panel.lines.slice(0, n)) out.push(plain(line));
    out.push(plain(''));
  }
  const room = paneRows(o.rows, o.panel);
  const pane = o.pane;
  if (pane.kind === 'help') {
    out.push(plain('keys', { bold: true }));
    for (const line of HELP_LINES) out.push(plain(line));
    for (let i = HELP_LINES.length; i < room; i++) out.push(plain(''));
  } else if (pane.kind === 'follow') {
    const end = Math.max(0, pane.lines.length - pane.scroll);
    const shown = pane.lines.slice(Math.max(0, end - room), end);
    out.push(plain(`following ${escapeForTerminal(pane.key)}: ${pane.lines.length} lines${pane.scroll > 0 ? `, ${pane.scroll} newer below` : ''}   ↑/↓ scroll  Esc back`, { bold: true, color: 'yellow' }));
    for (const line of shown) out.push(plain(line));
    if (pane.lines.length === 0) out.push(plain('(nothing seen for this key yet)', { dim: true }));
    for (let i = Math.max(shown.length, pane.lines.length === 0 ? 1 : 0); i < room; i++) out.push(plain(''));
  } else {
    out.push([
      { text: 'activity  ', bold: true },
      ...stageToggleLine(pane.shownStages as ReadonlySet<never>).flatMap((t) => [{ text: t.text, dim: !t.on, bold: t.on }, { text: '  ' }]),
    ]);
    out.push(plain(pane.view.header, { dim: true }));
    pane.view.lines.forEach((line, i) => out.push(plain(i === pane.selected ? `${line}` : line, { inverse: i === pane.selected })));
    for (let i = pane.view.lines.length; i < room - 1; i++) out.push(plain(''));
  }
  out.push(plain(o.status, { inverse: true }));
  return out;
}

/** The screen as saved by `s`: plain text, no escapes, trailing spaces trimmed. */
export function screenText(lines: readonly ScreenLine[], columns: number): string {
  return lines.map((l) => fit(l.map((s) => s.text).join(''), columns).trimEnd()).join('\n') + '\n';
}

function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length > width ? chars.slice(0, width).join('') : text + ' '.repeat(width - chars.length);
}
