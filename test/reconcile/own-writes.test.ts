import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import type { ObjectWriter, WriteRequest } from '../../src/reconcile/writer.js';
import { applyPatch } from '../../src/reconcile/patch.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

describe('reconcile: a sent write\'s own event', () => {
  it('is marked own write even when the watch event arrives before the write\'s HTTP answer', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const server = catalog.lw(DEPLOYMENTS);
    server.apply(deployment('default', 'web'));
    let records: TraceRecord[] = [];
    // A server whose answer is slower than its watch: the answer leaves only once the event was held.
    const writer: ObjectWriter = {
      async write(req: WriteRequest) {
        const cur = server.get(`${req.namespace}/${req.name}`)!;
        const stored = server.apply(applyPatch(cur, req.body, 'merge'));
        await eventually(() => records.some((r) => r.op === 'held' && r.key === 'default/web'), 'the event to be held');
        return stored;
      },
    };
    let runs = 0;
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      async reconcile(req, ctx) {
        runs++;
        const d = await ctx.get('deployments.apps', req);
        if (d && !d.metadata.annotations?.seen) await ctx.patch(d, { metadata: { annotations: { seen: 'yes' } } });
      },
    };
    const h = await startSession({ catalog, mode: 'apply', writer, controllers: [{ name: 'c', definition }] });
    records = h.records;
    await eventually(() => runs === 2 && h.session.isIdle(), 'the run after the write');
    const starts = h.records.filter((r) => r.op === 'start');
    const stored = server.get('default/web') as KubeObject;
    expect(starts[1].reasons).toEqual([expect.objectContaining({ reason: 'object updated', rv: stored.metadata.resourceVersion, own: true })]);
    await h.stop();
  });
});
