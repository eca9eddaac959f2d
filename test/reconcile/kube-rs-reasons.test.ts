// Every reconcile reason carries kube-rs's name for it (kube-runtime's ReconcileReason), in the trace and in what
// the reconcile function gets.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { kubeRsReason } from '../../src/reconcile/kube-rs-reason.js';
import type { ReconcileReason } from '../../src/reconcile/types.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

describe("kube-rs's reconcile reasons", () => {
  it('maps each of kwatch\'s reasons to the text kube-rs logs', () => {
    expect(['object updated', 'object deleted', 'related object updated', 'related object deleted', 'reconciler requested retry', 'error policy requested retry', 'error backoff', 'resync', 'custom'].map(kubeRsReason)).toEqual([
      'object updated',
      'object updated',
      'related object updated',
      'related object updated',
      'reconciler requested retry',
      'error policy requested retry',
      'error policy requested retry',
      'bulk reconcile requested',
      'unknown',
    ]);
  });

  it('triggers, resyncs, requeues and errors carry them beside kwatch\'s own reason', async () => {
    const clock = new FakeClock();
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const seen: ReconcileReason[][] = [];
    let runs = 0;
    const h = await startSession({
      catalog,
      clock,
      mode: 'intercept',
      resyncPeriodMs: 60_000,
      controllers: [
        {
          name: 'c',
          definition: {
            for: 'deployments.apps',
            watches: [{ resource: 'configmaps', map: () => ({ name: 'web', namespace: 'default' }) }],
            reconcile: (req) => {
              seen.push([...req.reasons]);
              runs++;
              if (runs === 2) return { requeue: true };
              if (runs === 3) throw new Error('boom');
              return undefined;
            },
          },
        },
      ],
    });
    await eventually(() => runs === 1, 'the initial run');
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'cfg', uid: 'c1' } });
    const queue = () => h.session.runners[0].controller.queue;
    await eventually(() => runs === 2 && queue().waitingCount() === 1, 'the related run and its requeue');
    // The requeue (5 ms) and then the error's backoff (10 ms) both fall within this second.
    await clock.advance(1000);
    await eventually(() => runs === 4, 'the requeued run, and the retry after its error');
    await clock.advance(60_000);
    // Both informers resync: the deployment itself, and the configmap its watch maps to it.
    await eventually(() => runs === 6, 'the resyncs');
    expect(seen.map((rs) => rs.map((r) => [r.reason, r.kubeRs]))).toEqual([
      [['object updated', 'object updated']],
      [['related object updated', 'related object updated']],
      [['reconciler requested retry', 'reconciler requested retry']],
      [['error backoff', 'error policy requested retry']],
      [['resync', 'bulk reconcile requested']],
      [['related object updated', 'related object updated']],
    ]);
    const traced = h.records.filter((r) => r.stage === 'reconcile' && r.op === 'start').map((r) => (r.reasons as { kubeRs?: string }[]).map((x) => x.kubeRs));
    expect(traced).toEqual([['object updated'], ['related object updated'], ['reconciler requested retry'], ['error policy requested retry'], ['bulk reconcile requested'], ['related object updated']]);
    await h.stop();
  });
});
