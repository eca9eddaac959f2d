// A reconcile module's write the server refused with 409 Conflict, as every picture of the trace shows it. A
// reconcile write carries the server's Status (`status: { code, reason, message }`), an endpoint write a `code`.
import { describe, expect, it } from 'vitest';
import { explainKey } from '../../src/trace-export/causal-chain.js';
import { findFindings } from '../../src/trace-export/findings.js';
import { toOtlpSpans } from '../../src/trace-export/otlp.js';
import { toPerfetto } from '../../src/trace-export/perfetto.js';
import { buildReportModel } from '../../src/trace-export/report-model.js';
import { isWrite, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { recordRun, writesDone } from './recorded-runs.js';

const CONFLICT = 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again';

/** One run whose only write is an update from a resourceVersion long gone: 409 Conflict. */
function conflictRun(): Promise<TraceRow[]> {
  let tries = 0;
  return recordRun({
    c: async (req, ctx) => {
      const d = await ctx.get('deployments.apps', req);
      if (d && tries++ === 0) await ctx.update({ ...d, metadata: { ...d.metadata, resourceVersion: '1', annotations: { x: 'y' } } }).catch(() => undefined);
    },
  }, writesDone(1, 1));
}

describe('a reconcile write refused with 409 Conflict', () => {
  it('trace why names the code and the server\'s message (cut at 60 characters)', async () => {
    const rows = await conflictRun();
    const w = rows.find(isWrite)!;
    expect(explainKey(rows, 'ns/web')).toEqual([`ns/web: write #${w.id} by c (409: ${CONFLICT.slice(0, 60)}) ← reconcile #${w.cause![0]} ← listed@1001 #3 (the initial list)`]);
  });

  it('is a stale-write finding, and the HTML report marks and counts it as a 409', async () => {
    const rows = await conflictRun();
    const w = rows.find(isWrite)!;
    expect(findFindings(rows)).toEqual([{ kind: 'stale-write', key: 'ns/web', title: '409 Conflict: c on ns/web', detail: CONFLICT, ids: [w.id] }]);
    const model = buildReportModel(rows, 'conflict');
    expect(model.lanes.find((l) => l.id === 'ns/web')!.marks.find((m) => m.id === w.id)).toMatchObject({ kind: 'conflict', label: 'update 409' });
    expect(model.summary).toContainEqual(['409 Conflict', 1]);
    expect(model.aggregates).toEqual([expect.objectContaining({ key: 'ns/web', writes: 1, conflicts: 1 })]);
    expect(model.verdict).toBe('1 stale-write');
  });

  it('Perfetto names the write slice with its code; OTLP gives the span its status code and an error status', async () => {
    const rows = await conflictRun();
    const w = rows.find(isWrite)!;
    const slice = toPerfetto(rows).traceEvents.find((e) => e.cat === 'write')!;
    expect(slice.name).toBe('update ns/web → 409');
    expect(slice.args).toMatchObject({ id: w.id, code: 409, writer: 'c', target: 'ns/web', error: CONFLICT });
    const span = toOtlpSpans(rows, 'ab'.repeat(16)).find((s) => s.spanId === w.id.toString(16).padStart(16, '0'))!;
    expect(span.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: '409' } });
    expect(span.status).toEqual({ code: 2, message: CONFLICT });
  });
});
