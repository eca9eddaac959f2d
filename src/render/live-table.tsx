// The live view of `kwatch index --watch`: a table redrawn every interval (ink on a TTY, plain blocks otherwise).
import { formatColumns } from './columns.js';
import { formatClock } from './format-units.js';
import { escapeForTerminal } from './terminal-escape.js';

export interface LiveTableOptions {
  headers: string[];
  /** Called once per frame; returns the rows to show now. */
  getRows: () => string[][];
  /** Highlight rows that are new or changed since the previous frame (for at least 1.5 s on a TTY). Default true. */
  highlight?: boolean;
  /** Row identity for change detection. Default: the first cell. */
  rowKey?: (row: string[]) => string;
  /** Default 1000. */
  intervalMs?: number;
  stream: NodeJS.WritableStream;
  /** A line above the table (e.g. totals); called once per frame. */
  title?: () => string;
}

export interface LiveView {
  /** Stops redrawing; the last frame stays on screen. */
  stop(): void;
}

/** Remembers the previous frame and tells which rows are new or changed in the next one. */
export class RowChanges {
  private prev = new Map<string, string>();
  private first = true;
  constructor(private readonly rowKey: (row: string[]) => string = (r) => r[0] ?? '') {}

  /** Keys of rows that differ from the previous frame; none on the first frame. */
  next(rows: string[][]): Set<string> {
    const changed = new Set<string>();
    const now = new Map<string, string>();
    for (const row of rows) {
      const key = this.rowKey(row);
      const value = row.join('\t');
      now.set(key, value);
      if (!this.first && this.prev.get(key) !== value) changed.add(key);
    }
    this.prev = now;
    this.first = false;
    return changed;
  }
}

/**
 * Whether ink would redraw frames as they come. ink (through is-in-ci) writes nothing but the last
 * frame when CI or CONTINUOUS_INTEGRATION is set to anything but "0"/"false", so a live view there
 * would stay blank until exit.
 */
export function inkDrawsLive(env: NodeJS.ProcessEnv = process.env): boolean {
  const set = (key: string) => key in env && env[key] !== '0' && env[key] !== 'false';
  return !set('CI') && !set('CONTINUOUS_INTEGRATION');
}

/** The live view for `stream`: ink on a TTY, plain timestamped blocks otherwise (pipes, files, CI logs). */
export async function startLiveView(opts: LiveTableOptions, env: NodeJS.ProcessEnv = process.env): Promise<LiveView> {
  const tty = (opts.stream as { isTTY?: boolean }).isTTY === true;
  return tty && inkDrawsLive(env) ? renderLiveTable(opts) : plainPeriodic(opts);
}

/** Renders the live table with ink (loaded here, on first use). Call on a TTY outside CI; see plainPeriodic otherwise. */
export async function renderLiveTable(opts: LiveTableOptions): Promise<LiveView> {
  const [React, ink] = await Promise.all([import('react'), import('ink')]);
  const h = React.createElement;
  const { Box, Text } = ink;
  const highlight = opts.highlight !== false;
  const rowKey = opts.rowKey ?? ((r: string[]) => r[0] ?? '');
  const changes = new RowChanges(rowKey);
  // A change stays highlighted for a while: ink throttles redraws, and a one-frame flash is easy to miss.
  const holdMs = Math.max(opts.intervalMs ?? 1000, 1500);
  const changedAt = new Map<string, number>();
  const frame = () => {
    const rows = opts.getRows();
    const now = Date.now();
    if (highlight) for (const key of changes.next(rows)) changedAt.set(key, now);
    for (const [key, t] of changedAt) if (now - t > holdMs) changedAt.delete(key);
    const lines = formatColumns(opts.headers, rows).replace(/\n$/, '').split('\n');
    const title = opts.title?.();
    return { title: title === undefined ? undefined : escapeForTerminal(title), lines, marks: [false, ...rows.map((r) => changedAt.has(rowKey(r)))] };
  };

  function LiveTable() {
    const [f, setFrame] = React.useState(frame);
    React.useEffect(() => {
      const t = setInterval(() => setFrame(frame()), opts.intervalMs ?? 1000);
      return () => clearInterval(t);
    }, []);
    return h(
      Box,
      { flexDirection: 'column' },
      f.title !== undefined ? h(Text, { dimColor: true }, f.title) : null,
      ...f.lines.map((line, i) =>
        h(Text, { key: i, bold: i === 0 || f.marks[i], color: f.marks[i] ? 'yellow' : undefined, wrap: 'truncate-end' }, line),
      ),
    );
  }

  const instance = ink.render(h(LiveTable), {
    stdout: opts.stream as NodeJS.WriteStream,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  return { stop: () => instance.unmount() };
}

/**
 * The non-TTY live view: every interval (and once at start) a block `--- HH:MM:SS.mmm ---`, the
 * table, and a `changed: a, b` line naming rows that are new or changed since the last block.
 */
export function plainPeriodic(opts: LiveTableOptions & { now?: () => number }): LiveView {
  const changes = new RowChanges(opts.rowKey);
  const highlight = opts.highlight !== false;
  const now = opts.now ?? Date.now;
  const tick = () => {
    const rows = opts.getRows();
    const changed = highlight ? changes.next(rows) : new Set<string>();
    let block = `--- ${formatClock(now())} ---\n`;
    const title = opts.title?.();
    if (title !== undefined) block += escapeForTerminal(title) + '\n';
    // An empty last cell (no CHANGE) would leave the padding of the cell before it: lines never end in spaces.
    block += formatColumns(opts.headers, rows).replace(/ +$/gm, '');
    if (changed.size > 0) block += `changed: ${[...changed].map((key) => escapeForTerminal(key)).join(', ')}\n`;
    opts.stream.write(block);
  };
  tick();
  const t = setInterval(tick, opts.intervalMs ?? 1000);
  return { stop: () => clearInterval(t) };
}
