// Which picture a file name asks for: .json / .json.gz Perfetto, .otlp.jsonl OTLP, .html the report; or --trace-format.
export const TRACE_FORMATS = ['perfetto', 'otlp', 'html'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

export function traceFormatOf(path: string, explicit: string | undefined): TraceFormat | undefined {
  if (explicit !== undefined) return (TRACE_FORMATS as readonly string[]).includes(explicit) ? (explicit as TraceFormat) : undefined;
  const p = path.toLowerCase();
  if (p.endsWith('.otlp.jsonl') || p.endsWith('.otlp.json')) return 'otlp';
  if (p.endsWith('.json') || p.endsWith('.json.gz') || p.endsWith('.perfetto-trace.json')) return 'perfetto';
  if (p.endsWith('.html') || p.endsWith('.htm')) return 'html';
  return undefined;
}

export function unknownFormatMessage(path: string, flag: string): string {
  return `cannot tell the picture format from "${path}": name it .json or .json.gz (Perfetto), .otlp.jsonl (OpenTelemetry) or .html (the report), or give ${flag} perfetto|otlp|html`;
}
