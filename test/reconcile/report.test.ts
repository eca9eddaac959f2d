// The --once report in-process: what RunReport counts for each key (runs, reasons, writes, the last run's
// pending writes, result), the verdict it gives (converged, not converged, did not settle, loops, errors,
// expectations not met) and the verdict line the CLI prints for it; and that a reconciler cannot make it say
// converged by returning before its writes are done.
import { describe, expect, it } from 'vitest';
import { reconcileVerdict, reportRecord } from '../../src/render/reconcile-report.js';
import { RunReport } from '../../src/reconcile/report.js';
import type { TriggerReason } from '../../src/reconcile/trigger.js';
import type { WriteOutcome } from '../../src/reconcile/writes.js';
import { CONFIGMAPS, MemoryCatalog, eventually, startSession } from './helpers.js';

const reason = (text?: string, op = 'update') => ({ op, reason: text }) as unknown as TriggerReason;
const write = (changed: string[], failed = false): WriteOutcome => ({ verb: 'update', resource: 'configmaps', target: 'ns/a', changed, failed });
const settled = { loops: 0, unsettled: false, expectationsMissed: 0 };

describe('RunReport: the counters', () => {
  it('counts a key\'s runs, its reasons by text (the op without one), its changing writes and the last run\'s pending ones', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [reason('object updated'), reason('object updated'), reason(undefined, 'resync')], [write(['data.a']), write(['data.b']), write([]), write(['data.c'], true)], 'ok', 5);
    report.add('c', 'ns/a', [reason('object updated')], [write(['data.a'])], 'requeue', 7);
    expect(report.runs).toBe(2);
    expect(report.rows()).toEqual([{ controller: 'c', key: 'ns/a', runs: 2, reasons: { 'object updated': 3, resync: 1 }, writes: 3, lastWrites: 1, result: 'requeue', error: undefined, errorAt: undefined, durationMs: 12 }]);
    expect(report.pending().map((r) => r.key)).toEqual(['ns/a']);
    expect(report.failed()).toEqual([]);
  });

  it('a last run that writes nothing that changes anything leaves nothing pending, whatever the runs before wrote', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [write(['data.a'])], 'ok', 1);
    report.add('c', 'ns/a', [], [write([]), write(['data.a'], true)], 'ok', 1);
    expect(report.rows()[0]).toMatchObject({ writes: 1, lastWrites: 0 });
    expect(report.pending()).toEqual([]);
  });

  it('keeps the last run\'s result and error: an error is failed until a later run succeeds', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [], 'error', 1, 'boom', 'ctl.js:3');
    expect(report.failed()).toMatchObject([{ key: 'ns/a', result: 'error', error: 'boom', errorAt: 'ctl.js:3' }]);
    report.add('c', 'ns/a', [], [], 'ok', 1);
    expect(report.failed()).toEqual([]);
    expect(report.rows()[0]).toMatchObject({ result: 'ok', error: undefined, errorAt: undefined });
  });

  it('has one row per controller and key, sorted by controller then key', () => {
    const report = new RunReport();
    report.add('web', 'ns/b', [], [], 'ok', 1);
    report.add('api', 'ns/z', [], [], 'ok', 1);
    report.add('web', 'ns/a', [], [], 'ok', 1);
    report.add('api', 'ns/z', [], [], 'ok', 1);
    report.add('web', 'ns/z', [], [], 'ok', 1);
    expect(report.rows().map((r) => `${r.controller} ${r.key} ${r.runs}`)).toEqual(['api ns/z 2', 'web ns/a 1', 'web ns/b 1', 'web ns/z 1']);
  });

  it('hands out copies: a row read once does not change with later runs', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [reason('object updated')], [], 'ok', 1);
    const before = report.rows()[0];
    report.add('c', 'ns/a', [reason('object updated')], [write(['data.a'])], 'ok', 1);
    expect(before).toMatchObject({ runs: 1, reasons: { 'object updated': 1 }, writes: 0, lastWrites: 0 });
  });

  it('--max-reconciles: calls back once, at exactly N runs, and says it is limited', () => {
    const report = new RunReport();
    let reached = 0;
    report.limitRuns(2, () => reached++);
    report.add('c', 'ns/a', [], [], 'ok', 1);
    expect([reached, report.limited]).toEqual([0, false]);
    report.add('c', 'ns/b', [], [], 'ok', 1);
    expect([reached, report.limited]).toEqual([1, true]);
    report.add('c', 'ns/c', [], [], 'ok', 1);
    expect(reached).toBe(1);
  });

  it('--max-reconciles set after N runs already happened calls back at once', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [], 'ok', 1);
    let reached = 0;
    report.limitRuns(1, () => reached++);
    expect(reached).toBe(1);
    expect(new RunReport().limited).toBe(false);
  });
});

describe('RunReport: the --once verdict and its line', () => {
  it('settled: converged when no write is pending, no loop reported and the run not cut short', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [write(['data.a'])], 'ok', 1);
    report.add('c', 'ns/a', [], [write([])], 'ok', 1);
    report.add('c', 'ns/b', [], [], 'requeue-after', 1);
    expect(report.verdict(settled)).toBe('converged');
    expect(reconcileVerdict(report.rows(), report.runs)).toBe('converged: 2 keys, 3 runs, no write pending');
    expect(report.rows().map((r) => reportRecord(r, 0).op)).toEqual(['converged', 'converged']);
  });

  it('not converged: a key whose last run still changes something', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [write(['data.a'])], 'ok', 1);
    report.add('c', 'ns/b', [], [], 'ok', 1);
    expect(report.verdict(settled)).toBe('not-converged');
    expect(reconcileVerdict(report.rows(), report.runs)).toBe('not converged: 1 of 2 keys would still write (2 runs)');
    expect(reportRecord(report.rows()[0], 0)).toMatchObject({ op: 'pending', writes: 1, pendingWrites: 1 });
  });

  it('did not settle: cut short by --max-reconciles or --settle-timeout, even with nothing pending', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [], 'ok', 1);
    expect(report.verdict({ ...settled, unsettled: true })).toBe('not-converged');
    expect(reconcileVerdict(report.rows(), report.runs, { unsettled: 'stopped at --max-reconciles' })).toBe('did not settle: stopped at --max-reconciles; 0 of 1 key would still write (1 run)');
  });

  it('loops: a reported loop never passes, even with nothing pending at the end', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [], 'ok', 1);
    expect(report.verdict({ ...settled, loops: 1 })).toBe('not-converged');
    expect(reconcileVerdict(report.rows(), report.runs, { loops: 1 })).toBe('not converged: 1 key, 1 run, no write pending, 1 loop reported');
  });

  it('errors come first, then expectations not met', () => {
    const report = new RunReport();
    report.add('c', 'ns/a', [], [write(['data.a'])], 'error', 1, 'boom');
    report.add('c', 'ns/b', [], [write(['data.a'])], 'ok', 1);
    expect(report.verdict({ loops: 1, unsettled: true, expectationsMissed: 1 })).toBe('errors');
    expect(reconcileVerdict(report.rows(), report.runs)).toBe('errors: 1 of 2 keys ended in an error, 2 with writes pending (2 runs)');
    const clean = new RunReport();
    clean.add('c', 'ns/a', [], [write(['data.a'])], 'ok', 1);
    expect(clean.verdict({ loops: 1, unsettled: true, expectationsMissed: 1 })).toBe('expectations');
    const met = new RunReport();
    met.add('c', 'ns/a', [], [], 'ok', 1);
    expect(met.verdict({ ...settled, expectationsMissed: 2 })).toBe('expectations');
  });

  it('a write the last run did not await counts when it lands, after the run was reported', () => {
    const report = new RunReport();
    const writes: WriteOutcome[] = [];
    report.add('c', 'ns/a', [], writes, 'ok', 1);
    writes.push(write(['data.a']));
    expect(report.verdict(settled)).toBe('not-converged');
    expect(report.rows()[0]).toMatchObject({ writes: 1, lastWrites: 1 });
    report.add('c', 'ns/a', [], [], 'ok', 1);
    expect(report.rows()[0]).toMatchObject({ writes: 1, lastWrites: 0 });
  });
});

describe('the --once verdict cannot be fooled by a reconciler', () => {
  it('one that returns before its write is done (not awaited) still has that write pending (--writes intercept)', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name: 'cfg' }, data: { n: '0' } });
    const h = await startSession({
      catalog,
      mode: 'intercept',
      controllers: [{ name: 'c', definition: { for: 'configmaps', reconcile(req, ctx) {
        // The write starts after the run returned: a helper that reads first and was called without await.
        void new Promise((resolve) => setImmediate(resolve)).then(() => ctx.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: req.namespace, name: req.name } }, { data: { n: '1' } }));
      } } }],
    });
    try {
      await eventually(() => h.records.some((r) => r.op === 'write'), 'the write');
      await eventually(() => h.session.isIdle(), 'idle');
      expect(h.session.report.runs).toBe(1);
      expect(h.session.report.pending().map((r) => r.key)).toEqual(['default/cfg']);
      expect(h.session.report.verdict(settled)).toBe('not-converged');
      expect(reconcileVerdict(h.session.report.rows(), h.session.report.runs)).toBe('not converged: 1 of 1 key would still write (1 run)');
    } finally {
      await h.stop();
    }
  });

  it('one that returns { requeue: true } is waited for (a retry is due), and is done once a run returns nothing', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name: 'cfg' }, data: { n: '0' } });
    let runs = 0;
    let done = false;
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'configmaps', reconcile: () => (++runs, done ? undefined : { requeue: true }) } }] });
    try {
      await eventually(() => runs >= 2, 'the requeued run');
      // Between runs the queue is idle (the requeue waits for its backoff): --once must not take that for settled.
      await eventually(() => h.session.isIdle(), 'idle between runs');
      expect(h.session.retriesDue()).toBe(1);
      done = true;
      await eventually(() => h.session.retriesDue() === 0 && h.session.isIdle(), 'the last run');
      expect(h.session.report.rows()[0].result).toBe('ok');
    } finally {
      await h.stop();
    }
  });
});
