// Writes one picture of a trace to a file: Perfetto JSON (gzipped for .gz), OTLP/JSON lines or the HTML report.
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { toHtmlReport } from './html-report.js';
import { toOtlpLines } from './otlp.js';
import { toPerfetto } from './perfetto.js';
import type { TraceFormat } from './trace-format.js';
import type { TraceRow } from './trace-rows.js';

/** `dropped`: the records the run made past MAX_ROWS, which the picture says it lacks (nothing left out silently). */
export function renderTrace(rows: readonly TraceRow[], format: TraceFormat, title: string, dropped = 0): string {
  switch (format) {
    case 'perfetto':
      return JSON.stringify(toPerfetto(rows, dropped));
    case 'otlp':
      return toOtlpLines(rows, 'kwatch', dropped);
    case 'html':
      return toHtmlReport(rows, title, dropped);
  }
}

export function writeTraceFile(path: string, rows: readonly TraceRow[], format: TraceFormat, title: string, dropped = 0): void {
  const text = renderTrace(rows, format, title, dropped);
  writeFileSync(path, format === 'perfetto' && path.toLowerCase().endsWith('.gz') ? gzipSync(text) : text);
}
