// --max-reconciles N: the session stops after exactly N runs, even when the key was queued again during the last
// one (a change arrived while it ran: under --writes apply, the watch event of the run's own write). The workqueue
// drains on an ordinary stop, as client-go's does; not past the limit.
import { describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { CONFIGMAPS, MemoryCatalog, eventually, startSession } from './helpers.js';

describe('--max-reconciles', () => {
  it('stops after exactly N runs when every run leaves its key queued again', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    let cm = catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name: 'cfg' }, data: { n: '0' } });
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const adds = () => records.filter((r) => r.stage === 'workqueue' && r.op === 'add').length;
    let runs = 0;
    const h = await startSession({
      catalog,
      tracer,
      mode: 'intercept',
      controllers: [{ name: 'c', definition: { for: 'configmaps', async reconcile() {
        runs++;
        // An outside change while the run is in progress: the run ends only once it has queued the key again.
        const before = adds();
        cm = catalog.lw(CONFIGMAPS).apply({ ...cm, data: { n: String(runs) } });
        await eventually(() => adds() > before, 'the change to queue the key again');
      } } }],
    });
    let stopped: Promise<void> | undefined;
    h.session.report.limitRuns(3, () => void (stopped = h.stop()));
    await eventually(() => stopped !== undefined, 'the limit');
    await stopped;
    expect(runs).toBe(3);
    expect(h.session.report.runs).toBe(3);
    expect(records.filter((r) => r.stage === 'reconcile' && r.op === 'start')).toHaveLength(3);
  });
});
