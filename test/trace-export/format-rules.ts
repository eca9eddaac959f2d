// The rules a Perfetto (Chrome Trace Event JSON) file and an OTLP/JSON lines file must follow, as checks that list
// what breaks them (an empty list: the file is well formed).
interface ChromeEvent {
  ph?: string;
  ts?: number;
  pid?: number;
  tid?: number;
  dur?: number;
  name?: string;
  bind_id?: string;
  flow_in?: boolean;
  flow_out?: boolean;
}

export function perfettoProblems(file: { traceEvents?: ChromeEvent[] }): string[] {
  const problems: string[] = [];
  const events = file.traceEvents;
  if (!Array.isArray(events)) return ['no traceEvents array'];
  const byTrack = new Map<string, { start: number; end: number; name?: string }[]>();
  const flowOut = new Set<string>();
  const flowIn: string[] = [];
  for (const e of events) {
    for (const f of ['ph', 'ts', 'pid', 'tid'] as const) if (e[f] === undefined) problems.push(`${JSON.stringify(e).slice(0, 120)}: no ${f}`);
    if (e.ph === 'X') {
      if (typeof e.dur !== 'number' || e.dur < 0) problems.push(`X ${e.name}: no dur`);
      const track = `${e.pid}/${e.tid}`;
      let list = byTrack.get(track);
      if (!list) byTrack.set(track, (list = []));
      list.push({ start: e.ts!, end: e.ts! + (e.dur ?? 0), name: e.name });
    }
    if (e.flow_out && e.bind_id) flowOut.add(e.bind_id);
    if (e.flow_in) {
      if (!e.bind_id) problems.push(`flow_in without bind_id on ${e.name}`);
      else flowIn.push(e.bind_id);
    }
  }
  for (const [track, slices] of byTrack) {
    slices.sort((a, b) => a.start - b.start);
    for (let i = 1; i < slices.length; i++) {
      if (slices[i].start < slices[i - 1].end) problems.push(`X slices overlap on ${track}: ${slices[i - 1].name} and ${slices[i].name}`);
    }
  }
  for (const id of flowIn) if (!flowOut.has(id)) problems.push(`flow_in ${id} has no flow_out`);
  return problems;
}

interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: unknown;
  startTimeUnixNano?: unknown;
  endTimeUnixNano?: unknown;
  links?: { traceId?: string; spanId?: string }[];
  status?: { code?: unknown };
}

export function otlpSpans(text: string): OtlpSpan[] {
  return text.split('\n').filter((l) => l.trim()).flatMap((l) => {
    const req = JSON.parse(l) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    return req.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
  });
}

export function otlpProblems(spans: OtlpSpan[]): string[] {
  const problems: string[] = [];
  const ids = new Set(spans.map((s) => s.spanId));
  for (const s of spans) {
    if (!/^[0-9a-f]{32}$/.test(s.traceId ?? '') || /^0+$/.test(s.traceId ?? '')) problems.push(`${s.name}: traceId ${s.traceId}`);
    if (!/^[0-9a-f]{16}$/.test(s.spanId ?? '') || /^0+$/.test(s.spanId ?? '')) problems.push(`${s.name}: spanId ${s.spanId}`);
    if (s.parentSpanId !== undefined && !ids.has(s.parentSpanId)) problems.push(`${s.name}: parent ${s.parentSpanId} does not exist`);
    for (const f of ['startTimeUnixNano', 'endTimeUnixNano'] as const) if (typeof s[f] !== 'string' || !/^\d{19}$/.test(s[f] as string)) problems.push(`${s.name}: ${f} ${String(s[f])} is not nanoseconds as a string`);
    if (typeof s.startTimeUnixNano === 'string' && typeof s.endTimeUnixNano === 'string' && BigInt(s.endTimeUnixNano) < BigInt(s.startTimeUnixNano)) problems.push(`${s.name}: ends before it starts`);
    if (!Number.isInteger(s.kind)) problems.push(`${s.name}: kind ${String(s.kind)} is not an integer`);
    if (s.status !== undefined && !Number.isInteger(s.status.code)) problems.push(`${s.name}: status code is not an integer`);
    for (const l of s.links ?? []) if (!ids.has(l.spanId)) problems.push(`${s.name}: link to ${l.spanId} that does not exist`);
  }
  return problems;
}
