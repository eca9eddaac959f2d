// One controller's runner, through a session: what the reconcile function is handed (its request, kube-rs's reason
// names), what each return value means for the queue and the --once report (nothing, requeue, requeueAfter, a
// value that is none of these), the error policy's answers (and a policy that throws), and a module's indexer
// that throws.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { ControllerModuleError } from '../../src/reconcile/controller-module-error.js';
import { ReconcileSession } from '../../src/reconcile/session.js';
import { Tracer } from '../../src/informer/trace.js';
import type { ControllerDefinition, ReconcileAction, ReconcileRequest } from '../../src/reconcile/types.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

/** One deployment, one controller over it, on a fake clock. */
async function oneKey(definition: Partial<ControllerDefinition>, o: { file?: string } = {}) {
  const clock = new FakeClock();
  const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
  catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
  const h = await startSession({ catalog, clock, mode: 'intercept', controllers: [{ name: 'c', file: o.file, definition: { for: 'deployments.apps', reconcile: () => undefined, ...definition } }] });
  const waiting = () => h.session.runners[0].controller.queue.waitingCount();
  return { h, clock, catalog, waiting };
}

describe('reconcile runner: what a run returns', () => {
  it('the request names the object and carries each reason with kube-rs\'s name for it', async () => {
    const seen: ReconcileRequest[] = [];
    const { h } = await oneKey({ reconcile: (req) => void seen.push(req) });
    await eventually(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ namespace: 'default', name: 'web' });
    expect(seen[0].reasons.map((r) => [r.reason, r.kubeRs])).toEqual([['object updated', 'object updated']]);
    expect('reasonsDropped' in seen[0]).toBe(false);
    await h.stop();
  });

  it('each result is reported: requeue (the queue\'s backoff), requeue-after (its wait), ok, and the run\'s time on the clock', async () => {
    const results: ReconcileAction[] = [{ requeue: true }, { requeueAfter: '2s' }, { requeue: false }];
    let runs = 0;
    const { h, clock, waiting } = await oneKey({
      async reconcile() {
        const r = results[runs++];
        await clock.advance(7);
        return r;
      },
    });
    const row = () => h.session.report.rows()[0];
    await eventually(() => runs === 1 && waiting() === 1, 'the requeue');
    expect(row().result).toBe('requeue');
    await clock.advance(5);
    await eventually(() => runs === 2 && waiting() === 1, 'the requeueAfter wait');
    expect(row().result).toBe('requeue-after');
    await clock.advance(1999);
    expect(runs).toBe(2);
    await clock.advance(1);
    await eventually(() => runs === 3 && h.session.isIdle(), 'the last run');
    expect(row()).toMatchObject({ runs: 3, result: 'ok', durationMs: 21 });
    expect(h.session.retriesDue()).toBe(0);
    await h.stop();
  });

  it('null, like nothing, means wait for the next change', async () => {
    const { h } = await oneKey({ reconcile: () => null as unknown as ReconcileAction });
    await eventually(() => h.session.report.runs === 1 && h.session.isIdle());
    expect(h.session.report.rows()[0]).toMatchObject({ result: 'ok' });
    expect(h.session.retriesDue()).toBe(0);
    await h.stop();
  });

  it('a requeueAfter of 0 waits the shortest timer, not forever', async () => {
    let runs = 0;
    const { h, clock, waiting } = await oneKey({ reconcile: () => (++runs === 1 ? { requeueAfter: 0 } : undefined) });
    await eventually(() => waiting() === 1);
    expect(h.records.find((r) => r.op === 'requeue-after')).toMatchObject({ requeueAfterMs: 1 });
    await clock.advance(1);
    await eventually(() => runs === 2);
    await h.stop();
  });

  it('a requeueAfter of exactly the longest timer is kept as it is, with no clamp record', async () => {
    let runs = 0;
    const { h, waiting } = await oneKey({ reconcile: () => (++runs === 1 ? { requeueAfter: 2 ** 31 - 1 } : undefined) });
    await eventually(() => waiting() === 1);
    expect(h.records.find((r) => r.op === 'requeue-after')).toMatchObject({ requeueAfterMs: 2 ** 31 - 1 });
    expect(h.records.some((r) => r.op === 'clamped')).toBe(false);
    await h.stop();
  });

  it('a value that is no action fails the run with a line saying what to return', async () => {
    const cases: [unknown, string][] = [
      [5, 'reconcile returned 5: return nothing, { requeue: true } or { requeueAfter: \'30s\' }'],
      ['30s', 'reconcile returned "30s": return nothing, { requeue: true } or { requeueAfter: \'30s\' }'],
      [{ requeueAfter: 'soon' }, 'reconcile returned requeueAfter "soon": use milliseconds or a duration such as \'30s\''],
      [{ requeueAfter: -1 }, 'reconcile returned requeueAfter -1: use milliseconds or a duration such as \'30s\''],
      [{ requeueAfter: Infinity }, 'reconcile returned requeueAfter null: use milliseconds or a duration such as \'30s\''],
    ];
    for (const [value, message] of cases) {
      const { h } = await oneKey({ reconcile: () => value as ReconcileAction });
      await eventually(() => h.session.report.runs === 1);
      expect(h.session.report.failed().map((r) => r.error)).toEqual([message]);
      expect(h.session.retriesDue()).toBe(1);
      await h.stop();
    }
  });
});

describe('reconcile runner: errors and the error policy', () => {
  it('without a policy the failed key is retried by the queue\'s backoff, and due until its next run succeeds', async () => {
    let runs = 0;
    const { h, clock } = await oneKey({
      reconcile() {
        if (++runs === 1) throw new Error('boom');
      },
    });
    await eventually(() => runs === 1 && h.session.retriesDue() === 1);
    expect(h.session.report.failed()).toMatchObject([{ key: 'default/web', result: 'error', error: 'boom' }]);
    await clock.advance(5);
    await eventually(() => runs === 2 && h.session.isIdle());
    expect(h.session.retriesDue()).toBe(0);
    expect(h.session.report.failed()).toEqual([]);
    await h.stop();
  });

  it('a thrown error is reported and traced with the line of the user\'s code that threw it, and its stack', async () => {
    const { h } = await oneKey({
      reconcile() {
        throw new Error('boom');
      },
    });
    await eventually(() => h.session.report.runs === 1);
    const at = h.session.report.failed()[0].errorAt;
    expect(at).toMatch(/^test[\\/]reconcile[\\/]runner\.test\.ts:\d+$/);
    const error = h.records.find((r) => r.stage === 'reconcile' && r.op === 'error')!;
    expect(error.at).toBe(at);
    expect(String(error.stack)).toMatch(/^Error: boom\n/);
    await h.stop();
  });

  it('a thrown non-Error is reported as its text', async () => {
    const { h } = await oneKey({
      reconcile() {
        throw 'plain string';
      },
    });
    await eventually(() => h.session.report.runs === 1);
    expect(h.session.report.failed()[0].error).toBe('plain string');
    await h.stop();
  });

  it('a policy answering nothing drops the key: no retry due', async () => {
    const asked: unknown[] = [];
    const { h, waiting } = await oneKey({
      reconcile() {
        throw new Error('boom');
      },
      errorPolicy: (err, req) => void asked.push([(err as Error).message, req.name]),
    });
    await eventually(() => asked.length === 1 && h.session.isIdle());
    expect(asked).toEqual([['boom', 'web']]);
    expect(h.session.retriesDue()).toBe(0);
    expect(waiting()).toBe(0);
    expect(h.session.report.failed()).toHaveLength(1);
    await h.stop();
  });

  it('a policy answering { requeue: true } retries after the shortest wait, and the key is due meanwhile', async () => {
    let runs = 0;
    const { h, clock, waiting } = await oneKey({
      reconcile() {
        if (++runs === 1) throw new Error('boom');
      },
      errorPolicy: () => ({ requeue: true }),
    });
    await eventually(() => waiting() === 1);
    expect(h.session.retriesDue()).toBe(1);
    expect(h.records.find((r) => r.stage === 'reconcile' && r.op === 'error')).toMatchObject({ requeueAfterMs: 1 });
    await clock.advance(1);
    await eventually(() => runs === 2);
    await h.stop();
  });

  it('a policy that throws, or answers no action, leaves the run\'s own error to the queue\'s backoff', async () => {
    for (const errorPolicy of [() => { throw new Error('policy broke'); }, () => 7 as unknown as ReconcileAction]) {
      let runs = 0;
      const { h, clock } = await oneKey({
        reconcile() {
          if (++runs === 1) throw new Error('boom');
        },
        errorPolicy,
      });
      await eventually(() => runs === 1 && h.session.retriesDue() === 1);
      const error = h.records.find((r) => r.stage === 'reconcile' && r.op === 'error');
      expect(error).toMatchObject({ error: 'boom', backoffMs: 5 });
      await clock.advance(5);
      await eventually(() => runs === 2);
      await h.stop();
    }
  });
});

describe('reconcile runner: a module\'s indexers', () => {
  it('an indexer answering nothing indexes nothing; one that throws ends the run naming the module, the index, the resource and the key', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'quiet' } });
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'bad', labels: { bad: 'yes' } } });
    for (const file of ['/work/ctrl.mjs', undefined]) {
      const session = new ReconcileSession({
        catalog,
        tracer: new Tracer(),
        mode: 'intercept',
        controllers: [{ name: 'c', file, definition: { for: 'deployments.apps', indexers: { configmaps: { byBad: (cm) => {
          if (cm.metadata.labels?.bad) throw new Error('no app label');
          return undefined as unknown as string[];
        } } }, reconcile: () => undefined } }],
      });
      await session.setup();
      const err = await session.run(new AbortController().signal).then(() => 'resolved', (e: unknown) => e);
      expect(err).toBeInstanceOf(ControllerModuleError);
      expect((err as ControllerModuleError).message).toBe(`${file ?? 'controller c'}: its indexer "byBad" on configmaps threw for default/bad: no app label`);
      expect((err as ControllerModuleError).file).toBe(file ?? '');
      expect((err as ControllerModuleError).code).toBe('CONTROLLER_MODULE');
      expect(((err as Error).cause as Error).message).toBe('no app label');
    }
  });
});
