// `kwatch events --live`: a full-screen ink dashboard of the pipeline. It reads a PipelineStats and an
// ActivityLog that subscribe to the trace like any other output, and redraws from them on a timer
// (at most 10 frames a second), never per record, so the pipeline does not wait on the terminal.
import type { ActivityLog } from './activity-log.js';
import { HELP_LINES, headerLines, stageCells, type DashboardInfo } from './dashboard-text.js';
import type { PipelineStats } from './pipeline-stats.js';
import { escapeForTerminal } from '../terminal-escape.js';

export interface DashboardOptions {
  info: DashboardInfo;
  stats: PipelineStats;
  activity: ActivityLog;
  stdout: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** q or Ctrl-C: the caller stops the pipeline, then calls stop(). */
  onQuit: () => void;
  /** Frame interval; never under 100 ms. Default 100. */
  frameMs?: number;
  /** Draw on the terminal's alternate screen (restored on stop). Default true. */
  alternateScreen?: boolean;
}

export interface Dashboard {
  /** A message for the user (a retry notice): shown above the status line instead of written over the screen. */
  notice(text: string): void;
  /** Unmounts ink and restores the screen; idempotent. */
  stop(): void;
}

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';
/** Header (2) + blank + pipeline (4) + blank + activity header + status line. */
const FIXED_ROWS = 10;

/** Renders the dashboard (ink and react loaded here, on first use). Call on a TTY outside CI. */
export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  const [React, ink] = await Promise.all([import('react'), import('ink')]);
  const h = React.createElement;
  const { Box, Text, useInput } = ink;
  const frameMs = Math.max(o.frameMs ?? 100, 100);
  const alt = o.alternateScreen !== false;
  let notice = '';

  interface UiState {
    /** The activity as it was when space paused it. */
    paused?: { header: string; lines: string[] };
    filter: string;
    /** The filter being typed after `/`. */
    typing?: string;
    help: boolean;
  }

  function View() {
    const [, setTick] = React.useState(0);
    // Key handling reads and writes this directly: keys arriving between two frames must see each other.
    const ui = React.useRef<UiState>({ filter: '', help: false }).current;
    const redraw = () => setTick((n) => n + 1);
    React.useEffect(() => {
      const t = setInterval(redraw, frameMs);
      return () => clearInterval(t);
    }, []);
    const rows = o.stdout.rows || 24;
    const columns = o.stdout.columns || 80;
    const activityRows = Math.max(3, rows - FIXED_ROWS - 1); // one spare row: ink redraws in place only while the frame is shorter than the screen
    const activity = o.activity.lines(activityRows, ui.filter);
    type Key = Parameters<Parameters<typeof useInput>[0]>[1];
    const onKey = (input: string, key: Partial<Key>) => {
      const quit = input === 'q' || (key.ctrl && input === 'c');
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
      else if (input.startsWith('/')) ui.typing = input.slice(1);
      else if (input === ' ') ui.paused = ui.paused ? undefined : o.activity.lines(activityRows, ui.filter);
      else if (key.escape) ui.filter = '';
    };
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
    const { typing, filter, paused, help } = ui;
    const snap = o.stats.snapshot();
    const cellWidth = Math.max(10, Math.floor(columns / 8));
    const shown = paused ?? activity;
    const status =
      typing !== undefined
        ? `/${escapeForTerminal(typing)}█   Enter apply  Esc clear`
        : [notice ? escapeForTerminal(notice) : undefined, paused ? 'PAUSED (space resumes)' : undefined, filter ? `filter: ${escapeForTerminal(filter)}` : undefined, '/ filter  space pause  ? help  q quit'].filter(Boolean).join('   ');
    return h(
      Box,
      { flexDirection: 'column', width: columns },
      ...headerLines(o.info, snap).map((line, i) => h(Text, { key: `h${i}`, bold: i === 0, wrap: 'truncate-end' }, line)),
      h(Text, { key: 'gap1' }, ' '),
      h(
        Box,
        { key: 'pipeline', flexDirection: 'row' },
        ...stageCells(snap).map((cell) =>
          h(
            Box,
            { key: cell.stage, flexDirection: 'column', width: cellWidth },
            ...cell.lines.map((line, i) =>
              h(Text, { key: i, bold: i === 0, color: cell.bottleneck ? 'red' : i === 0 ? 'cyan' : undefined, inverse: cell.bottleneck && i === 0, wrap: 'truncate-end' }, line || ' '),
            ),
          ),
        ),
      ),
      h(Text, { key: 'gap2' }, ' '),
      ...(help
        ? HELP_LINES.map((line, i) => h(Text, { key: `help${i}`, wrap: 'truncate-end' }, line))
        : [
            h(Text, { key: 'ah', dimColor: true, wrap: 'truncate-end' }, shown.header),
            ...shown.lines.map((line, i) => h(Text, { key: `a${i}`, wrap: 'truncate-end' }, line)),
            ...Array.from({ length: Math.max(0, activityRows - shown.lines.length) }, (_, i) => h(Text, { key: `pad${i}` }, ' ')),
          ]),
      h(Text, { key: 'status', inverse: true, wrap: 'truncate-end' }, status),
    );
  }

  if (alt) o.stdout.write(ENTER_ALT);
  const instance = ink.render(h(View), {
    stdout: o.stdout,
    stdin: o.stdin ?? process.stdin,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  let stopped = false;
  return {
    notice(text) {
      notice = text;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      instance.unmount();
      if (alt) o.stdout.write(LEAVE_ALT);
    },
  };
}
