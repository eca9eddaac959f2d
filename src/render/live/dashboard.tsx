// `kwatch events|reconcile|index --live`: a full-screen ink dashboard of the pipeline. It reads a
// PipelineStats, an ActivityLog and a KeyHistory that subscribe to the trace like any other output,
// and redraws from them on a timer (at most 10 frames a second), never per record, so the pipeline
// does not wait on the terminal.
import { STAGES } from '../../informer/trace.js';
import { escapeForTerminal } from '../terminal-escape.js';
import type { ActivityLog, ActivityView } from './activity-log.js';
import { buildScreen, paneRows, screenText, type PanelContent, type ScreenLine, type Segment } from './dashboard-screen.js';
import type { DashboardInfo } from './dashboard-text.js';
import { historyLines, type KeyHistory } from './key-history.js';
import type { PipelineStats } from './pipeline-stats.js';

export interface DashboardOptions {
  info: DashboardInfo;
  stats: PipelineStats;
  activity: ActivityLog;
  /** Per-key histories for Enter / --key; without it lines cannot be followed. */
  history?: KeyHistory;
  /** --key: start by following this key. */
  follow?: string;
  /** The reconcile or index panel, read once per frame. */
  panel?: () => PanelContent;
  /** `s`: saves the screen's text; returns where (the status line says so) or throws a message. */
  saveSnapshot?: (text: string) => string;
  stdout: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** q or Ctrl-C: the caller stops the pipeline, then calls stop(). */
  onQuit: () => void;
  /**
   * The shortest frame interval; never under 100 ms (10 frames a second). Default 100. A frame that takes
   * long (a big screen on a busy machine) stretches the interval so drawing keeps to FRAME_BUDGET of the
   * CPU, up to SLOWEST_FRAME_MS.
   */
  frameMs?: number;
  /** Draw on the terminal's alternate screen (restored on stop). Default true. */
  alternateScreen?: boolean;
}

export interface Dashboard {
  /** A message for the user (a retry notice): shown above the status line instead of written over the screen. */
  notice(text: string): void;
  /** The screen as plain text, as `s` saves it. */
  text(): string;
  /** Unmounts ink and restores the screen; idempotent. */
  stop(): void;
}

/** The share of the event loop the drawing may take: the pipeline shares it. */
const FRAME_BUDGET = 0.05;
/** However slow a frame, two a second at least. */
const SLOWEST_FRAME_MS = 500;

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';

interface UiState {
  /** The activity as it was when space (or the first ↑/↓) froze it. */
  paused?: ActivityView;
  /** The paused view came from a selection: Esc resumes. */
  pausedBySelection?: boolean;
  /** Index of the selected line in the paused view. */
  selected?: number;
  filter: string;
  /** The filter being typed after `/`. */
  typing?: string;
  help: boolean;
  following?: string;
  /** Follow view: lines scrolled up from the newest. */
  scroll: number;
}

/** Renders the dashboard (ink and react loaded here, on first use). Call on a TTY outside CI. */
export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  // React picks its build when first loaded: without this, the development build (checks, warnings,
  // several times slower) draws every frame, on the same event loop as the pipeline.
  process.env.NODE_ENV ??= 'production';
  const [React, ink] = await Promise.all([import('react'), import('ink')]);
  const view = dashboardView(o, React, ink);
  const alt = o.alternateScreen !== false;
  if (alt) o.stdout.write(ENTER_ALT);
  const instance = ink.render(view.element, {
    stdout: o.stdout,
    stdin: o.stdin ?? process.stdin,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  let stopped = false;
  return {
    notice: view.notice,
    text: view.text,
    stop() {
      if (stopped) return;
      stopped = true;
      instance.unmount();
      if (alt) o.stdout.write(LEAVE_ALT);
    },
  };
}

/**
 * The dashboard as a react element and its controls, for any ink renderer (startDashboard's, or
 * ink-testing-library's in tests). `o.stdout` gives the screen's size; `o.stdin` is not read here.
 */
export function dashboardView(
  o: Omit<DashboardOptions, 'stdout'> & { stdout: { rows?: number; columns?: number } },
  React: typeof import('react'),
  ink: typeof import('ink'),
): { element: import('react').ReactElement; notice(text: string): void; text(): string } {
  const h = React.createElement;
  const { Box, Text, useInput } = ink;
  const frameMs = Math.max(o.frameMs ?? 100, 100);
  let notice = '';
  let lastScreen: ScreenLine[] = [];
  const ui: UiState = { filter: '', help: false, scroll: 0 };
  if (o.follow && o.history) {
    ui.following = o.follow;
    o.history.follow(o.follow, o.activity.records());
  }
  const size = () => ({ rows: o.stdout.rows || 24, columns: o.stdout.columns || 80 });
  const snapshotText = () => screenText(lastScreen, size().columns);

  const follow = (key: string | undefined) => {
    if (!key || !o.history) return;
    o.history.follow(key, o.activity.records());
    ui.following = key;
    ui.scroll = 0;
  };
  const unfollow = () => {
    o.history?.unfollow();
    ui.following = undefined;
    ui.scroll = 0;
  };

  type Key = Parameters<Parameters<typeof useInput>[0]>[1];
  const onKey = (input: string, key: Partial<Key>) => {
    const quit = input === 'q' || (key.ctrl && input === 'c');
    const room = paneRows(size().rows, o.panel?.()) - 1;
    if (ui.typing !== undefined) {
      if (key.return) {
        ui.filter = ui.typing;
        ui.typing = undefined;
      } else if (key.escape) {
        ui.filter = '';
        ui.typing = undefined;
      } else if (key.backspace || key.delete) ui.typing = ui.typing.slice(0, -1);
      else if (key.ctrl && input === 'c') o.onQuit();
      else if (input && !key.ctrl && !key.meta) ui.typing += input;
    } else if (ui.help && !quit) ui.help = false;
    else if (quit) o.onQuit();
    else if (input === '?') ui.help = true;
    else if (input === 's') snapshot();
    else if (ui.following !== undefined) {
      if (key.escape) unfollow();
      else if (key.upArrow) ui.scroll++;
      else if (key.downArrow) ui.scroll = Math.max(0, ui.scroll - 1);
    } else if (input.startsWith('/')) ui.typing = input.slice(1);
    else if (input === ' ') {
      ui.paused = ui.paused ? undefined : o.activity.lines(room, ui.filter);
      ui.selected = undefined;
      ui.pausedBySelection = false;
    } else if (/^[1-9]$/.test(input)) o.activity.toggleStage(STAGES[Number(input) - 1]);
    else if (key.upArrow || key.downArrow) {
      if (!ui.paused) {
        ui.paused = o.activity.lines(room, ui.filter);
        ui.pausedBySelection = true;
      }
      const n = ui.paused.lines.length;
      if (n > 0) ui.selected = ui.selected === undefined ? n - 1 : Math.max(0, Math.min(n - 1, ui.selected + (key.upArrow ? -1 : 1)));
    } else if (key.return) {
      if (ui.paused && ui.selected !== undefined) follow(ui.paused.records[ui.selected]?.key);
    } else if (key.escape) {
      if (ui.selected !== undefined) {
        ui.selected = undefined;
        if (ui.pausedBySelection) ui.paused = undefined;
      } else ui.filter = '';
    }
  };
  const snapshot = () => {
    if (!o.saveSnapshot) return;
    try {
      notice = `snapshot saved to ${o.saveSnapshot(snapshotText())}`;
    } catch (err) {
      notice = `snapshot failed: ${(err as Error).message}`;
    }
  };

  function View() {
    const [, setTick] = React.useState(0);
    const redraw = () => setTick((n) => n + 1);
    // The next frame is due frameMs after this one, or later when this one was expensive: its CPU time
    // (not wall time: on a busy machine the process waits for a core) from the render to the layout effect.
    // The first frame pays for ink's and react's set-up: it says nothing about the next ones.
    const startedAt = process.cpuUsage();
    const first = React.useRef(true);
    React.useLayoutEffect(() => {
      const used = process.cpuUsage(startedAt);
      const cost = first.current ? 0 : (used.user + used.system) / 1000;
      first.current = false;
      const t = setTimeout(redraw, Math.min(SLOWEST_FRAME_MS, Math.max(frameMs, cost / FRAME_BUDGET)));
      return () => clearTimeout(t);
    });
    // Keys typed quickly (or pasted, or read late under load) arrive as one chunk: `/web` opens the
    // filter with `web` in it, and an Enter inside the chunk applies what came before it.
    useInput((input, key) => {
      if (input.length > 1 && /[\r\n]/.test(input)) {
        const parts = input.split(/\r\n|\r|\n/);
        parts.forEach((part, i) => {
          if (part) onKey(part, {});
          if (i < parts.length - 1) onKey('', { return: true });
        });
      } else onKey(input, key);
      redraw();
    });
    const { rows, columns } = size();
    const panel = o.panel?.();
    const room = paneRows(rows, panel);
    const { typing, filter, paused, help, following } = ui;
    const status =
      typing !== undefined
        ? `/${escapeForTerminal(typing)}█   Enter apply  Esc clear`
        : [
            notice ? escapeForTerminal(notice) : undefined,
            paused ? (ui.selected !== undefined ? 'SELECT (Enter follows the key, Esc resumes)' : 'PAUSED (space resumes)') : undefined,
            filter ? `filter: ${escapeForTerminal(filter)}` : undefined,
            '/ filter  space pause  ↑↓ Enter follow  1-8 stages  s snapshot  ? help  q quit',
          ]
            .filter(Boolean)
            .join('   ');
    lastScreen = buildScreen({
      info: o.info,
      snap: o.stats.snapshot(),
      columns,
      rows,
      panel,
      pane: help
        ? { kind: 'help' }
        : following !== undefined
          ? { kind: 'follow', key: following, lines: historyLines(o.history?.records(following) ?? []), scroll: ui.scroll }
          : { kind: 'activity', view: paused ?? o.activity.lines(room - 1, filter), selected: ui.selected, shownStages: o.activity.stagesShown },
      status,
    });
    return h(
      Box,
      { flexDirection: 'column', width: columns },
      // One Text per line, nested ones only for a line of several styles (the pipeline row): ink's cost is per node.
      ...lastScreen.map((line, i) =>
        line.length === 1
          ? h(Text, { key: i, wrap: 'truncate-end', ...style(line[0]) }, line[0].text || ' ')
          : h(Text, { key: i, wrap: 'truncate-end' }, ...line.map((seg, j) => h(Text, { key: j, ...style(seg) }, seg.text))),
      ),
    );
  }

  return {
    element: h(View),
    notice(text) {
      notice = text;
    },
    text: snapshotText,
  };
}

function style(seg: Segment) {
  return { bold: seg.bold, dimColor: seg.dim, inverse: seg.inverse, color: seg.color };
}
