// kubectl's column printer: a port of the tabwriter kubectl prints tables with (elastic tabstops).
//
// kubectl (cli-runtime printers.GetNewTabWriter) uses github.com/liggitt/tabwriter — Go's text/tabwriter
// plus a RememberWidths flag — configured as minwidth 6, tabwidth 4, padding 3, padchar ' ',
// flags RememberWidths. With a space padchar the tabwidth never matters. Semantics reproduced here:
// - cells are tab-terminated; the last cell of a line (text after its last tab) belongs to no column
//   and is never padded;
// - a column is a run of consecutive lines that all have a tab-terminated cell at that index; its
//   width is max(minwidth, widest cell + padding), widths counted in code points (Go counts runes);
// - nothing is trimmed: an empty last cell leaves the padding of the cell before it (kubectl
//   `api-resources -o wide` rows with no CATEGORIES end in spaces, and so do ours);
// - RememberWidths: a column index never gets narrower than it was earlier in the output.
import { escapeForTerminal } from './terminal-escape.js';

export interface ColumnOptions {
  /** Minimal column width including padding (kubectl: 6; Go's zero value: 0). */
  minWidth?: number;
  /** Spaces added to the widest cell (kubectl: 3). */
  padding?: number;
  /** liggitt/tabwriter's RememberWidths (kubectl: true). */
  rememberWidths?: boolean;
  /** The remembered widths, kept across calls: one tabwriter flushed after each write (kubectl get -w). */
  rememberedWidths?: number[];
}

const KUBECTL: Required<Omit<ColumnOptions, 'rememberedWidths'>> = { minWidth: 6, padding: 3, rememberWidths: true };

/**
 * Rows (and an optional header row) as kubectl prints them: each row is written as its cells joined
 * by tabs plus a newline, then aligned. The result ends with a newline unless there are no lines.
 * Control characters in cells (a tab or newline too) are escaped, so that a cell stays one cell.
 */
export function formatColumns(headers: string[] | null, rows: string[][], opts: ColumnOptions = {}): string {
  const lines = headers ? [headers, ...rows] : rows;
  let text = '';
  for (const l of lines) text += l.map((cell) => escapeForTerminal(cell)).join('\t') + '\n';
  return formatTabbed(text, opts);
}

interface Cell {
  text: string;
  width: number;
}

/** Aligns raw tab-separated text exactly as kubectl's tabwriter would write it (then Flush). */
export function formatTabbed(text: string, opts: ColumnOptions = {}): string {
  const o = { ...KUBECTL, ...opts };
  const segments = text.split('\n');
  const lines: Cell[][] = segments.map((seg, i) => {
    const parts = seg.split('\t');
    // The unterminated tail of the text only becomes a cell when it is non-empty (as at Flush).
    if (i === segments.length - 1 && parts[parts.length - 1] === '') parts.pop();
    return parts.map((t) => ({ text: t, width: runeCount(t) }));
  });
  const out: string[] = [];
  const maxWidths: number[] = opts.rememberedWidths ?? [];
  const widths: number[] = [];

  const writeLines = (line0: number, line1: number) => {
    for (let i = line0; i < line1; i++) {
      const line = lines[i];
      for (let j = 0; j < line.length; j++) {
        const c = line[j];
        out.push(c.text);
        if (j < widths.length) out.push(' '.repeat(widths[j] - c.width));
      }
      if (i + 1 < lines.length) out.push('\n');
    }
  };

  // Go's Writer.format: recursive over columns; `column` is the depth (= widths known so far).
  const format = (line0: number, line1: number) => {
    const column = widths.length;
    for (let row = line0; row < line1; row++) {
      if (column >= lines[row].length - 1) continue;
      // A cell exists in this column: print the lines before this block, then measure the block.
      writeLines(line0, row);
      line0 = row;
      let width = o.minWidth;
      for (; row < line1; row++) {
        const line = lines[row];
        if (column >= line.length - 1) break;
        const w = line[column].width + o.padding;
        if (w > width) width = w;
      }
      if (o.rememberWidths) {
        if (maxWidths.length < widths.length) maxWidths.push(...widths.slice(maxWidths.length));
        if (maxWidths.length === widths.length) maxWidths.push(width);
        else if (maxWidths[widths.length] > width) width = maxWidths[widths.length];
        else if (maxWidths[widths.length] < width) maxWidths[widths.length] = width;
      }
      widths.push(width);
      format(line0, row);
      widths.pop();
      // As in Go, the outer increment skips the line that ended the block: it has no cell here.
      line0 = row;
    }
    writeLines(line0, line1);
  };

  format(0, lines.length);
  return out.join('');
}

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++; // count code points: skip the high half of a surrogate pair
  }
  return n;
}
