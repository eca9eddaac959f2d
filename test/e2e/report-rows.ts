// Reads back a report table (cli-table3's box, src/render/report-table.ts): its rows as objects by header.

/** The rows of the first boxed table in `text` (or of the `nth`, from 0), cells trimmed. */
export function reportRows(text: string, nth = 0): Record<string, string>[] {
  const tables = text.split(/^└.*$/m).slice(0, -1);
  const lines = (tables[nth] ?? '').split('\n').filter((l) => l.startsWith('│'));
  const cells = (l: string) => l.split('│').slice(1, -1).map((c) => c.trim());
  const [header, ...rows] = lines.map(cells);
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
}
