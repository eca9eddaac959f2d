// The live dashboard's views rendered with ink-testing-library against recorded trace sequences: the
// pipeline row and sparklines of a sim run, following a key that was deleted while the watch was down
// (its delete arrives as a DeletedFinalStateUnknown tombstone), the reconcile panel's loop warning.
import { setImmediate as tick } from 'node:timers/promises';
import * as React from 'react';
import * as ink from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { runReconciler } from '../../src/informer/controller.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { SharedIndexInformer } from '../../src/informer/shared-informer.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { ActivityLog } from '../../src/render/live/activity-log.js';
import { dashboardView } from '../../src/render/live/dashboard.js';
import { historyLines, KeyHistory } from '../../src/render/live/key-history.js';
import { PipelineStats } from '../../src/render/live/pipeline-stats.js';
import { ReconcileStats } from '../../src/render/live/reconcile-panel.js';
import { SecondSeries, sparkline } from '../../src/render/live/sparkline.js';
import { recordedLiveTrace } from './fixtures/live-sim-trace.js';


const screen = { rows: 40, columns: 160 };
let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  unmount = undefined;
});

function show(o: Partial<Parameters<typeof dashboardView>[0]> & { stats: PipelineStats }) {
  const view = dashboardView({ info: { server: 'http://127.0.0.1:1', resources: 'pods' }, activity: new ActivityLog(), onQuit: () => {}, stdout: screen, ...o }, React, ink);
  const r = render(view.element);
  unmount = r.unmount;
  return { ...r, view };
}

async function frameWith(lastFrame: () => string | undefined, test: (s: string) => boolean, ms = 3000): Promise<string> {
  const deadline = Date.now() + ms;
  while (!test(lastFrame() ?? '') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return lastFrame() ?? '';
}

/** The pipeline row: stage name → [rate, total, depth] as drawn. */
function pipelineRow(frame: string): Record<string, string[]> {
  const lines = frame.split('\n');
  const i = lines.findIndex((l) => /^http\s+reflector\s+watch\s+fifo\s+indexer\s+handler\s+workqueue\s+reconcile/.test(l));
  if (i < 0) return {};
  const width = screen.columns / 8;
  const cell = (line: string, j: number) => line.slice(j * width, (j + 1) * width).trim();
  return Object.fromEntries(lines[i].trim().split(/\s+/).map((name, j) => [name, [1, 2, 3].map((k) => cell(lines[i + k] ?? '', j))]));
}

describe('the dashboard (ink-testing-library)', () => {
  it('draws the pipeline row of a recorded sim run: each stage total, queue depths, the watch state and the sparklines', async () => {
    const records = recordedLiveTrace().filter((r) => r.op !== 'stopped');
    let t = records[0].time;
    const stats = new PipelineStats({ now: () => t });
    const activity = new ActivityLog();
    for (const r of records) {
      t = r.time;
      stats.add(r);
      activity.add(r);
    }
    const { lastFrame } = show({ stats, activity });
    const frame = await frameWith(lastFrame, (s) => s.includes('reconcile'));
    const row = pipelineRow(frame);
    expect(row.watch.slice(1)).toEqual(['total 4', '']);
    expect(row.reflector[1]).toBe('total 11');
    expect(row.fifo.slice(1)).toEqual(['total 15', 'depth 0']);
    expect(row.handler[1]).toBe('total 15');
    expect(row.workqueue.slice(1)).toEqual(['total 15', 'depth 0']);
    expect(row.reconcile[1]).toBe('total 15');
    expect(row.http[1]).toBe('total 2');
    expect(row.watch[0]).toMatch(/^[\d.]+\/s$/);
    expect(frame).toMatch(/watching since \d\d:\d\d:\d\d {2}rv 217 {2}up /);
    // a minute of one-second bars; the 4 watch events fell in the last seconds
    const spark = frame.split('\n').find((l) => l.startsWith('watch events/s'));
    expect(spark).toMatch(/^watch events\/s +[▁▂▃▄▅▆▇█]{60} {2}last [\d.]+\/s {2}max [1-4](\.0)?\/s$/);
    expect(spark).toMatch(/[▂▃▄▅▆▇█]/);
    expect(frame).toMatch(/^workqueue depth +[▁▂▃▄▅▆▇█]{60}/m);
    // the activity pane: the default stages on, http / indexer / reconcile hidden (in parentheses)
    expect(frame).toMatch(/activity {2}\(1 http\) {2}2 reflector {2}3 watch {2}4 fifo {2}\(5 indexer\) {2}6 handler {2}7 workqueue {2}\(8 reconcile\)/);
  });

  it('1–8 toggle stages in the activity pane, and s saves the screen as plain text and says where', async () => {
    const stats = new PipelineStats();
    const activity = new ActivityLog();
    for (const r of recordedLiveTrace()) activity.add(r);
    let saved = '';
    const { lastFrame, stdin } = show({ stats, activity, saveSnapshot: (text) => ((saved = text), '/tmp/snap.txt') });
    await frameWith(lastFrame, (s) => s.includes('OnAdd'));
    const stagesOf = (s: string) => new Set(s.split('\n').filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l)).map((l) => l.split(/\s+/)[1]));
    expect(stagesOf(lastFrame()!).has('handler')).toBe(true);
    stdin.write('6'); // handler off
    let frame = await frameWith(lastFrame, (s) => s.includes('(6 handler)'));
    expect(stagesOf(frame).has('handler')).toBe(false);
    stdin.write('8'); // reconcile on
    frame = await frameWith(lastFrame, (s) => stagesOf(s).has('reconcile'));
    expect(frame).toMatch(/ 8 reconcile/);
    expect(stagesOf(frame).has('reconcile')).toBe(true);
    stdin.write('s');
    frame = await frameWith(lastFrame, (s) => s.includes('snapshot saved to'));
    expect(frame).toContain('snapshot saved to /tmp/snap.txt');
    expect(saved).toContain('resource pods');
    expect(saved).toMatch(/^http\s+reflector\s+watch/m);
    expect(saved).toContain('(6 handler)');
    // eslint-disable-next-line no-control-regex
    expect(saved).not.toMatch(/\u001b/);
  });

  it('follows a key deleted while the watch was down: ↑ selects, Enter shows its history with the tombstone, Esc goes back', async () => {
    const records = await recordTombstone();
    const stats = new PipelineStats();
    const activity = new ActivityLog();
    const history = new KeyHistory();
    for (const r of records) {
      stats.add(r);
      activity.add(r);
      history.add(r);
    }
    const { lastFrame, stdin } = show({ stats, activity, history, stdout: { rows: 70, columns: 160 } });
    await frameWith(lastFrame, (s) => s.includes('OnDelete'));
    // the newest lines belong to ns/b (still there); filter to ns/a and select its last line
    stdin.write('/ns/a\r');
    await frameWith(lastFrame, (s) => s.includes('filter: ns/a'));
    stdin.write('\u001b[A'); // ↑
    await frameWith(lastFrame, (s) => s.includes('SELECT'));
    stdin.write('\r');
    const frame = await frameWith(lastFrame, (s) => s.includes('following ns/a'));
    const lines = frame.split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    // its whole life: listed, updated over the watch, then gone while disconnected and delivered as a tombstone on the relist
    const added = at(/handler\s+OnAdd\s+1001\s+\(initial list\)/);
    const updated = at(/handler\s+OnUpdate\s+1003\s+rv 1001 → 1003/);
    const watched = at(/watch\s+MODIFIED\s+1003/);
    const fifoTomb = at(/fifo\s+Deleted\s+1003\s+tombstone: DeletedFinalStateUnknown/);
    const handlerTomb = at(/handler\s+OnDelete\s+1003\s+tombstone: DeletedFinalStateUnknown/);
    const queued = at(/workqueue\s+add\s+1003\s+.*reason=OnDelete@1003/);
    const reconciled = at(/reconcile\s+start\s+.*reasons=.*OnDelete@1003/);
    for (const i of [added, watched, updated, fifoTomb, handlerTomb, queued, reconciled]) expect(i, frame).toBeGreaterThan(0);
    expect(added).toBeLessThan(watched);
    expect(watched).toBeLessThan(updated);
    expect(updated).toBeLessThan(fifoTomb);
    expect(fifoTomb).toBeLessThan(handlerTomb);
    expect(handlerTomb).toBeLessThan(queued);
    expect(queued).toBeLessThan(reconciled);
    // no watch DELETED: the delete was never seen on a watch
    expect(at(/watch\s+DELETED/)).toBe(-1);
    expect(frame).not.toMatch(/^\S+\s+\S+\s+\S+\s+ns\/b/m);
    stdin.write('\u001b');
    const back = await frameWith(lastFrame, (s) => !s.includes('following ns/a'));
    expect(back).toMatch(/TIME\s+STAGE\s+OP\s+KEY/);
  });

  it('shows the reconcile panel: running, held and queued keys, runs, errors, requeues, p50/p99 and the loop warning', async () => {
    const panel = new ReconcileStats();
    const base = { stage: 'reconcile' as const, controller: 'stamper' };
    const trace: TraceRecord[] = [
      { time: 1, stage: 'workqueue', op: 'add', key: 'ns/web', queue: 'stamper', controller: 'stamper', depth: 2 },
      { time: 1, ...base, op: 'start', key: 'ns/web' },
      { time: 2, ...base, op: 'write', key: 'ns/web', verb: 'update-status' },
      { time: 3, ...base, op: 'success', key: 'ns/web', durationMs: 4 },
      { time: 3, ...base, op: 'start', key: 'ns/web' },
      { time: 3, ...base, op: 'held', key: 'ns/web' },
      { time: 4, ...base, op: 'error', key: 'ns/web', durationMs: 200, error: 'boom', requeues: 1, backoffMs: 5 },
      { time: 5, ...base, op: 'start', key: 'ns/db' },
      { time: 6, ...base, op: 'loop', key: 'ns/web', rounds: 4, fields: ['status.lastSeen'] },
    ];
    for (const r of trace) panel.add(r);
    const { lastFrame } = show({ stats: new PipelineStats(), panel: () => ({ title: 'reconcile: stamper (writes overlay)', lines: panel.lines() }) });
    const frame = await frameWith(lastFrame, (s) => s.includes('reconcile: stamper'));
    expect(frame).toContain('running 1  held 1  queued 2   runs 3  errors 1  requeues 1   p50 4ms  p99 200ms');
    expect(frame).toContain('loop: stamper ns/web re-triggered itself with its own writes 4 times in a row; changing every round: status.lastSeen');
  });
});

describe('KeyHistory', () => {
  it('keeps a bounded ring per recent key, forgets the least recently seen keys, and keeps the followed key whole', () => {
    const h = new KeyHistory({ recentKeys: 3, perKey: 5, followed: 100 });
    h.add({ time: 0, stage: 'watch', op: 'ADDED', key: 'a', rv: '0' });
    for (let i = 0; i < 50; i++) for (const k of ['b', 'c', 'd']) h.add({ time: i, stage: 'watch', op: 'MODIFIED', key: k, rv: String(i) });
    expect(h.size).toBe(3);
    expect(h.records('a')).toHaveLength(0);
    expect(h.records('d').map((r) => r.rv)).toEqual(['45', '46', '47', '48', '49']);
    h.follow('d');
    for (let i = 50; i < 120; i++) h.add({ time: i, stage: 'watch', op: 'MODIFIED', key: 'd', rv: String(i) });
    expect(h.records('d')).toHaveLength(75);
    h.unfollow();
    expect(h.records('d')).toHaveLength(5);
  });

  it("keeps the reflector records that explain the followed key's tombstone (expired, relist, listed), not other keyless records", () => {
    const h = new KeyHistory();
    h.follow('ns/a', [{ time: 0, stage: 'reflector', op: 'listed', rv: '5', items: 2 }, { time: 0, stage: 'handler', op: 'OnAdd', key: 'ns/a', rv: '4' }]);
    h.add({ time: 1, stage: 'reflector', op: 'watch-close', rv: '6' });
    h.add({ time: 2, stage: 'reflector', op: 'expired', rv: '6' });
    h.add({ time: 3, stage: 'reflector', op: 'relist', reason: 'watch expired' });
    h.add({ time: 4, stage: 'handler', op: 'OnDelete', key: 'ns/b', rv: '3', tombstone: true });
    h.add({ time: 4, stage: 'handler', op: 'OnDelete', key: 'ns/a', rv: '4', tombstone: true });
    expect(h.records('ns/a').map((r) => `${r.stage} ${r.op}`)).toEqual(['reflector listed', 'handler OnAdd', 'reflector expired', 'reflector relist', 'handler OnDelete']);
  });

  it('keeps a diff instead of the objects of an update', () => {
    const h = new KeyHistory({ recentKeys: 8 });
    const old = { kind: 'Pod', metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' }, status: { phase: 'Pending' } };
    const now = { kind: 'Pod', metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' }, status: { phase: 'Running' } };
    h.add({ time: 0, stage: 'reconcile', op: 'write', key: 'ns/a', rv: '2', verb: 'update-status', old, new: now });
    const [kept] = h.records('ns/a');
    expect(kept.old).toBeUndefined();
    expect(historyLines([kept])).toEqual([expect.stringMatching(/reconcile\s+write\s+2\s+verb=update-status/), '      status.phase: Pending → Running']);
  });
});

describe('sparklines', () => {
  it('draws a minute of per-second values with block characters, a level holding through silent seconds', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe('▁▂▃▅█');
    const counts = new SecondSeries('count', 5);
    const depth = new SecondSeries('level', 5);
    for (const [t, n] of [[1000, 1], [1500, 1], [3000, 3]]) counts.record(t, n);
    depth.record(1000, 7);
    depth.record(3200, 2);
    expect(counts.series(4999)).toEqual([0, 2, 0, 3, 0]);
    expect(depth.series(4999)).toEqual([0, 7, 7, 2, 2]);
  });
});

/**
 * The trace of an informer and a controller over a FakeListerWatcher: ns/a and ns/b listed, ns/a updated
 * over the watch, then the watch ends, ns/a is deleted and the history compacted before the informer
 * watches again: the resumed watch gets 410, the relist no longer has ns/a, and its delete reaches the
 * handlers as a DeletedFinalStateUnknown tombstone.
 */
async function recordTombstone(): Promise<TraceRecord[]> {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const lw = new FakeListerWatcher();
  lw.seed([{ metadata: { name: 'a', namespace: 'ns' } }, { metadata: { name: 'b', namespace: 'ns' } }]);
  const informer = new SharedIndexInformer({ listerWatcher: lw, tracer, random: () => 0.5 });
  const stop = new AbortController();
  const { done } = runReconciler(informer, { reconcile: async () => {}, tracer }, stop.signal);
  const running = informer.run(stop.signal);
  const until = async (test: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await tick();
    }
  };
  try {
    await lw.waitForWatch(1);
    lw.apply({ metadata: { name: 'a', namespace: 'ns', labels: { v: '2' } } });
    await until(() => records.some((r) => r.stage === 'reconcile' && r.op === 'success' && r.key === 'ns/a' && records.some((x) => x.op === 'OnUpdate')), 'the update reconciled');
    lw.closeWatches();
    lw.remove('ns/a');
    lw.compact();
    await until(() => records.some((r) => r.stage === 'reconcile' && r.op === 'success' && r.key === 'ns/a' && records.some((x) => x.op === 'OnDelete')), 'the tombstone reconciled');
  } finally {
    stop.abort();
    await Promise.allSettled([running, done]);
  }
  return records;
}
