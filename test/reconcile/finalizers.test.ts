import { describe, expect, it } from 'vitest';
import { realClock, type Clock } from '../../src/informer/clock.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

const FINALIZER = 'example.com/cleanup';

/** Adds its finalizer; deletes what is labelled doomed; cleans up (unless stubborn) and lets it go once deleting. */
function finalizing(stubborn: boolean, seen: string[]): ControllerDefinition {
  return {
    for: 'deployments.apps',
    async reconcile(req, ctx) {
      const d = await ctx.get('deployments.apps', req);
      if (!d) return void seen.push('gone');
      if (d.metadata.deletionTimestamp) {
        seen.push('deleting');
        if (!stubborn) await ctx.removeFinalizer(d, FINALIZER);
        return;
      }
      if (!d.metadata.finalizers?.includes(FINALIZER)) return void (await ctx.addFinalizer(d, FINALIZER), seen.push('added'));
      if (d.metadata.labels?.doomed) {
        seen.push('delete');
        await ctx.delete(d);
      }
    },
  };
}

describe('finalizers under --writes overlay', () => {
  it('a delete of an object with finalizers marks it deleting; removing the last finalizer deletes it', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web', { metadata: { namespace: 'default', name: 'web', labels: { doomed: 'yes' } } }));
    const seen: string[] = [];
    const h = await startSession({ catalog, mode: 'overlay', controllers: [{ name: 'c', definition: finalizing(false, seen) }] });
    await eventually(() => seen.includes('gone') && h.session.isIdle(), 'the object to go');
    expect(seen).toEqual(['added', 'delete', 'deleting', 'gone']);
    const writes = h.records.filter((r) => r.op === 'write');
    expect(writes.map((w) => [w.verb, w.changed])).toEqual([
      ['patch', ['metadata.finalizers']],
      ['delete', ['metadata.deletionTimestamp']],
      ['patch', ['metadata.finalizers', '(deleted: its last finalizer is gone)']],
    ]);
    expect(h.records.filter((r) => r.stage === 'watch' && r.local).map((r) => r.op)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(h.session.stuckDeleting()).toEqual([]);
    // The server's object was never touched.
    expect(catalog.lw(DEPLOYMENTS).get('default/web')!.metadata.finalizers).toBeUndefined();
    await h.stop();
  });

  it('an object its finalizer keeps is reported stuck deleting, with the finalizers that hold it', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web', { metadata: { namespace: 'default', name: 'web', labels: { doomed: 'yes' } } }));
    const seen: string[] = [];
    const h = await startSession({ catalog, mode: 'overlay', controllers: [{ name: 'c', definition: finalizing(true, seen) }] });
    await eventually(() => seen.includes('deleting') && h.session.isIdle(), 'the object to be marked deleting');
    expect(h.session.stuckDeleting()).toEqual([{ resource: 'deployments.apps', key: 'default/web', finalizers: [FINALIZER] }]);
    await h.stop();
  });

  it('deleting an object that is already deleting changes nothing: the first deletionTimestamp stays, seconds later', async () => {
    // Real timers, a wall clock the test moves forward: the second delete comes 5 s after the first.
    let skew = 0;
    const clock: Clock = { ...realClock, now: () => realClock.now() + skew };
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web', { metadata: { namespace: 'default', name: 'web', finalizers: [FINALIZER] } }));
    const stamps: string[] = [];
    let deletes = 0;
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      async reconcile(req, ctx) {
        const d = await ctx.get('deployments.apps', req);
        if (!d) return;
        if (d.metadata.deletionTimestamp) stamps.push(d.metadata.deletionTimestamp);
        if (deletes < 2) {
          if (deletes === 1) skew += 5000;
          deletes++;
          await ctx.delete(d);
        }
      },
    };
    const h = await startSession({ catalog, mode: 'overlay', clock, controllers: [{ name: 'c', definition }] });
    await eventually(() => deletes === 2 && h.session.isIdle(), 'both deletes');
    const writes = h.records.filter((r) => r.op === 'write');
    expect(writes.map((w) => [w.verb, w.changed])).toEqual([
      ['delete', ['metadata.deletionTimestamp']],
      ['delete', []],
    ]);
    // The one run after the first delete saw the first stamp; the second delete made no event and no new stamp.
    expect(stamps).toHaveLength(1);
    expect(h.records.filter((r) => r.stage === 'watch' && r.local).map((r) => r.op)).toEqual(['MODIFIED']);
    expect(h.session.stuckDeleting()).toEqual([{ resource: 'deployments.apps', key: 'default/web', finalizers: [FINALIZER] }]);
    await h.stop();
  });
});
