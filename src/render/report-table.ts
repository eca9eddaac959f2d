// kwatch's own reports — the exit summary, index counts, list pages, discovery --explain, the reconcile
// --once report — drawn as cli-table3 boxes. kubectl's own tables (api-resources, get-like listings)
// keep kubectl's tabwriter layout (columns.ts) instead, byte for byte.
//
// Cells are escaped for the terminal (they hold server text) and never end in spaces outside their box;
// the borders and the header are coloured only when asked (cli-table3 colours them by default).
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';
import { escapeForTerminal } from './terminal-escape.js';

export interface ReportTableOptions {
  /** Bold header and grey borders (decide with shouldColor). Default false: no escape codes at all. */
  color?: boolean;
  /** Right-align these columns (counts, sizes, durations). */
  alignRight?: number[];
}

let Table: typeof CliTable3 | undefined;

/** The rows under a header row, boxed; ends with a newline. */
export function reportTable(headers: string[], rows: string[][], opts: ReportTableOptions = {}): string {
  // cli-table3 ships CommonJS and costs tens of ms to load: required when the first table is drawn.
  Table ??= createRequire(import.meta.url)('cli-table3') as typeof CliTable3;
  const right = new Set(opts.alignRight ?? []);
  // Colour is applied here, not by cli-table3's style: that one asks @colors/colors, whose own terminal and CI
  // detection would override the caller's decision (shouldColor, --color, NO_COLOR).
  const table = new Table({
    head: opts.color ? headers.map((h) => `${BOLD}${h}${NO_BOLD}`) : headers,
    style: { head: [], border: [], compact: true },
    colAligns: headers.map((_, i) => (right.has(i) ? 'right' : 'left')),
  });
  for (const r of rows) table.push(r.map((c) => escapeForTerminal(c)));
  const text = table.toString();
  return `${opts.color ? text.replace(BOX_RUNS, (m) => `${GREY}${m}${DEFAULT_FG}`) : text}\n`;
}

const BOLD = '\x1b[1m';
const NO_BOLD = '\x1b[22m';
const GREY = '\x1b[90m';
const DEFAULT_FG = '\x1b[39m';
/** The box-drawing characters cli-table3 draws its borders with. */
const BOX_RUNS = /[─│┌┐└┘├┤┬┴┼]+/g;
