// Records a run made past the collector's limit (MAX_ROWS) are not in the picture; each picture says how many, so
// nothing the user recorded is left out silently (stderr says it too, but a file outlives the terminal).
import { describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { ChromeEvent } from '../../src/trace-export/perfetto.js';
import { TraceCollector, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { renderTrace } from '../../src/trace-export/write-trace-file.js';

const T0 = 1_700_000_000_000;

function trace(): TraceRow[] {
  const tracer = new Tracer();
  const collector = new TraceCollector(tracer);
  for (let i = 0; i < 3; i++) tracer.emit({ time: T0 + i, stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: String(i + 1), name: 'pods' } as TraceRecord);
  return collector.stop();
}

interface OtlpLine { resourceSpans: { resource: { attributes: { key: string; value: unknown }[] }; scopeSpans: { spans: { name: string; attributes: { key: string; value: unknown }[] }[] }[] }[] }

describe('a picture of a run that dropped records past the limit', () => {
  it('Perfetto: an instant on a kwatch track where the kept records end, and otherData', () => {
    const file = JSON.parse(renderTrace(trace(), 'perfetto', 't', 1234)) as { traceEvents: ChromeEvent[]; otherData: Record<string, string> };
    const kwatch = file.traceEvents.find((e) => e.name === 'process_name' && (e.args as { name: string }).name === 'kwatch')!.pid;
    expect(file.traceEvents.filter((e) => e.pid === kwatch && e.ph === 'i').map((e) => [e.name, e.ts - T0 * 1000, e.args])).toEqual([
      ['1234 later records dropped past the limit', 2000, { kept: 3, dropped: 1234 }],
    ]);
    expect(file.otherData).toEqual({ generator: 'kwatch --trace-out', droppedRecords: '1234' });
  });

  it('OTLP: a resource attribute on every line and an attribute of the run\'s root span', () => {
    const line = JSON.parse(renderTrace(trace(), 'otlp', 't', 1234).split('\n')[0]) as OtlpLine;
    expect(line.resourceSpans[0].resource.attributes).toContainEqual({ key: 'kwatch.records.dropped', value: { intValue: '1234' } });
    const root = line.resourceSpans[0].scopeSpans[0].spans.find((s) => s.name === 'kwatch run')!;
    expect(root.attributes).toEqual([{ key: 'kwatch.records', value: { intValue: '3' } }, { key: 'kwatch.records.dropped', value: { intValue: '1234' } }]);
  });

  it('the HTML report: beside the record count in the summary', () => {
    expect(renderTrace(trace(), 'html', 't', 1234)).toContain('<span>records <b>3</b></span><span>dropped past the limit <b>1234</b></span>');
  });

  it('none dropped: no word of it in any picture', () => {
    for (const format of ['perfetto', 'otlp', 'html'] as const) expect(renderTrace(trace(), format, 't')).not.toMatch(/dropped/i);
  });
});
