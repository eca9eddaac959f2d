import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ActivityLog, formatTableLine, parseActivityFilter } from '../../src/render/live/activity-log.js';
import { headerLines, stageCells } from '../../src/render/live/dashboard-text.js';
import { countOf, PipelineStats } from '../../src/render/live/pipeline-stats.js';
import { TraceSummary } from '../../src/render/summary.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import { canDrawLive, liveUnavailable } from '../../src/cli/live-available.js';
import { recordedLiveTrace } from './fixtures/live-sim-trace.js';


describe('the dashboard text from a recorded sim run', () => {
  it('shows each stage total, queue depths and the watch state', () => {
    const records = recordedLiveTrace();
    let t = records[0].time;
    const stats = new PipelineStats({ now: () => t });
    for (const r of records.filter((x) => x.op !== 'stopped')) {
      t = r.time;
      stats.add(r);
    }
    const snap = stats.snapshot();
    const cells = Object.fromEntries(stageCells(snap).map((c) => [c.stage, c.lines]));
    expect(cells.watch.slice(2)).toEqual(['total 4', '']);
    expect(cells.reflector[2]).toBe('total 11'); // the listed pods
    expect(cells.fifo.slice(2)).toEqual(['total 15', 'depth 0']);
    expect(cells.handler[2]).toBe('total 15');
    expect(cells.workqueue.slice(2)).toEqual(['total 15', 'depth 0']);
    expect(cells.reconcile[2]).toBe('total 15');
    expect(cells.http[2]).toBe('total 2');
    const [what, state] = headerLines({ context: 'sim', server: 'http://127.0.0.1:1234', resources: 'pods', namespace: 'default', selector: 'app=web' }, snap);
    expect(what).toBe('context sim  server http://127.0.0.1:1234  resource pods  namespace default  selector app=web');
    expect(state).toMatch(/^watching since \d\d:\d\d:\d\d {2}rv \d+ {2}up [\d.]+s {2}reconnects 0 {2}relists 0 {2}expired 0$/);
  });
});

describe('one definition of a stage total', () => {
  it("the dashboard's `total` per stage and the exit summary's TOTAL count the same thing", () => {
    const stats = new PipelineStats({ now: () => 0 });
    const summary = new TraceSummary();
    for (const r of recordedLiveTrace()) {
      stats.add(r);
      summary.add(r);
    }
    const dashboard = Object.fromEntries(stats.snapshot().stages.filter((s) => s.total > 0).map((s) => [s.stage, s.total]));
    const totals = Object.fromEntries(Object.entries(summary.toJSON().totals).filter(([, n]) => n! > 0));
    expect(Object.keys(dashboard).length).toBeGreaterThan(3);
    expect(totals).toEqual(dashboard);
    expect(summary.format()).toMatch(/│ STAGE\s+│ TOTAL │ RECORDS │ OPS/);
  });
});

describe('ActivityLog', () => {
  it('keeps the newest records and prints them with the trace table columns, filtered by key, stage= and op=', () => {
    const log = new ActivityLog({ capacity: 200 });
    for (const r of recordedLiveTrace()) log.add(r);
    const { header, lines } = log.lines(10);
    expect(header).toMatch(/^TIME\s+STAGE\s+OP\s+KEY\s+RV\s+DETAIL$/);
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => /^\d\d:\d\d:\d\d\.\d{3} {2}\S+/.test(l))).toBe(true);
    // the default stages: no indexer, no http, no workqueue done/forget
    expect(lines.some((l) => /\s(indexer|http)\s/.test(l) || /workqueue\s+(done|forget)\s/.test(l))).toBe(false);
    const watch = log.lines(100, 'stage=watch').lines;
    expect(watch.length).toBe(4);
    expect(log.lines(100, 'op=MODIFIED').lines.length).toBe(3);
    const key = 'default/cart-api-wrsd46kgl7-6wmmv';
    const mine = log.lines(100, key).lines;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((l) => l.includes(key))).toBe(true);
    expect(log.lines(100, `${key} stage=handler`).lines.every((l) => /handler\s+OnAdd/.test(l))).toBe(true);
  });

  it('keeps a memory per stage: two relists of 3,000 pods leave the reflector records findable, in arrival order', () => {
    const log = new ActivityLog({ stages: 'all' });
    let t = 0;
    for (let relist = 0; relist < 2; relist++) {
      log.add({ time: t++, stage: 'reflector', op: 'relist', rv: String(100 + relist), reason: 'watch expired' });
      log.add({ time: t++, stage: 'reflector', op: 'listed', rv: String(100 + relist), items: 3000 });
      for (let i = 0; i < 3000; i++) {
        log.add({ time: t, stage: 'fifo', op: 'Replaced', key: `ns/p${i}`, rv: String(i) });
        log.add({ time: t, stage: 'handler', op: 'OnUpdate', key: `ns/p${i}`, rv: String(i) });
      }
    }
    expect(log.lines(100, 'op=relist').lines).toHaveLength(2);
    expect(log.lines(100, 'stage=reflector').records.map((r) => `${r.op}@${r.rv}`)).toEqual(['relist@100', 'listed@100', 'relist@101', 'listed@101']);
    // Each stage keeps its newest 2,000, merged back in the order they came.
    expect(log.records().filter((r) => r.stage === 'handler')).toHaveLength(2000);
    const last = log.lines(4).records;
    expect(last.map((r) => `${r.stage} ${r.key}`)).toEqual(['fifo ns/p2998', 'handler ns/p2998', 'fifo ns/p2999', 'handler ns/p2999']);
  });

  it('shows the field that explains a failure within 160 columns, ahead of a long url', () => {
    const url = `https://10.0.0.1:6443/api/v1/namespaces/payments-production/pods?labelSelector=${'app%3Dcheckout%2Ctier%3Dbackend'.repeat(3)}&watch=true`;
    const r: TraceRecord = { time: 0, stage: 'http', op: 'response', method: 'GET', url, ms: 30012, error: 'read ECONNRESET', conn: 4 };
    const line = formatTableLine(r).slice(0, 160);
    expect(line).toContain('error="read ECONNRESET"');
  });

  it('aligns RV and DETAIL on every line of the pane when one key is longer than the KEY column', () => {
    const log = new ActivityLog({ stages: 'all' });
    for (const key of ['ns/a', 'payments-production/checkout-api-7d9f8c6b5d-x2k4q-canary', 'ns/b']) log.add({ time: 0, stage: 'watch', op: 'MODIFIED', key, rv: '4321', type: 'MODIFIED', conn: 1 });
    const { header, lines } = log.lines(10);
    expect(new Set(lines.map((l) => l.indexOf('4321')))).toEqual(new Set([header.indexOf('RV')]));
    expect(new Set(lines.map((l) => l.indexOf('conn=1'))).size).toBe(1);
  });

  it('escapes control characters a key may carry', () => {
    const log = new ActivityLog({ stages: 'all' });
    log.add({ time: 0, stage: 'watch', op: 'ADDED', key: 'ns/evil\u001b]0;owned\u0007', rv: '1' });
    const [line] = log.lines(5).lines;
    expect(line).toContain('ns/evil\\x1b]0;owned\\x07');
    expect([...line].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
  });

  it('parses filters: every term must match', () => {
    const f = parseActivityFilter(' web  op=OnAdd ');
    expect(f({ time: 0, stage: 'handler', op: 'OnAdd', key: 'ns/web-1' })).toBe(true);
    expect(f({ time: 0, stage: 'handler', op: 'OnUpdate', key: 'ns/web-1' })).toBe(false);
    expect(f({ time: 0, stage: 'handler', op: 'OnAdd', key: 'ns/db-1' })).toBe(false);
  });
});

describe('liveUnavailable', () => {
  it('needs a terminal on stdin and stdout, no CI and a TERM that is not dumb', () => {
    const tty = { isTTY: true };
    expect(liveUnavailable(tty, tty, { TERM: 'xterm' })).toBeUndefined();
    expect(liveUnavailable({}, tty, {})).toBe('not a terminal');
    expect(liveUnavailable(tty, {}, {})).toBe('not a terminal');
    expect(liveUnavailable(tty, tty, { CI: 'true' })).toBe('CI is set');
    expect(liveUnavailable(tty, tty, { TERM: 'dumb' })).toBe('TERM=dumb');
  });

  // The line a run prints when it falls back, here for TERM=dumb on a terminal (test/e2e/live.test.ts runs the CLI
  // for CI set in a terminal and for no terminal: the same line with another reason).
  it('canDrawLive says why in one line on a terminal with TERM=dumb, and draws nothing', () => {
    const saved = { isTTY: Object.getOwnPropertyDescriptor(process.stdin, 'isTTY'), TERM: process.env.TERM, CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
    Object.defineProperty(process.stdin, 'isTTY', { value: true, configurable: true });
    process.env.TERM = 'dumb';
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
    let err = '';
    try {
      expect(canDrawLive({ isTTY: true }, { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream)).toBe(false);
      expect(err).toBe('--live needs a terminal (TERM=dumb): showing the plain trace\n');
    } finally {
      if (saved.isTTY) Object.defineProperty(process.stdin, 'isTTY', saved.isTTY);
      else delete (process.stdin as { isTTY?: boolean }).isTTY;
      for (const k of ['TERM', 'CI', 'CONTINUOUS_INTEGRATION'] as const) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });
});

describe('startDashboard (ink)', () => {
  it('draws the stages from the aggregator at most 10 times a second however fast records come, and q asks to quit', { timeout: 40_000 }, async () => {
    const { startDashboard, stdout, stdin, output, restore } = await inkTerminal();
    const stats = new PipelineStats();
    const activity = new ActivityLog();
    let quit = 0;
    const out = () => output.text;
    const dashboard = await startDashboard({
      info: { server: 'http://127.0.0.1:1', resources: 'pods' },
      stats,
      activity,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      onQuit: () => quit++,
      alternateScreen: false,
    });
    try {
      const records = recordedLiveTrace();
      // Records arriving as fast as they can, for a second at least and until thousands have come (however busy
      // the machine is: the cap on frames is the behaviour here, not how fast this machine feeds them).
      // Thousands for the busiest stage, whatever the machine's speed: its total then has four digits.
      const perStage = new Map<string, number>();
      for (const r of records) perStage.set(r.stage, (perStage.get(r.stage) ?? 0) + countOf(r));
      const busiest = Math.max(...perStage.values());
      const start = Date.now();
      const before = out().length;
      let rounds = 0;
      while (Date.now() - start < 1000 || rounds * busiest < 3000) {
        for (const r of records) {
          stats.add(r);
          activity.add(r);
        }
        rounds++;
        await new Promise((r) => setImmediate(r));
      }
      const elapsed = Date.now() - start;
      // Each frame draws the header once: at most 10 frames a second (and one more at the edge); fewer when
      // frames are expensive (drawing keeps to 5% of the CPU).
      const frames = out().slice(before).split('resource pods').length - 1;
      expect(frames, 'frames drawn while fed').toBeGreaterThanOrEqual(1);
      expect(frames, `frames drawn in ${elapsed} ms`).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
      expect(out()).toContain('resource pods');
      // the next frame (at most half a second away) shows the thousands counted meanwhile
      const countedBy = Date.now() + 15_000;
      while (!/total \d{4,}/.test(out()) && Date.now() < countedBy) await new Promise((r) => setTimeout(r, 10));
      expect(out()).toMatch(/total \d{4,}/);
      // a retry notice shows in the status line, not written over the frame
      dashboard.notice('list pods failed: connection refused; retrying in 2s');
      const shownBy = Date.now() + 5000;
      while (!out().includes('retrying in 2s') && Date.now() < shownBy) await new Promise((r) => setTimeout(r, 10));
      expect(out()).toMatch(/list pods failed: connection refused; retrying in 2s {3}\/ filter/);
      // `/`, a key and Enter read as one chunk (typed fast, or read late under load) still apply the filter
      const key = 'default/cart-api-wrsd46kgl7-6wmmv';
      stdin.write(`/${key}\r`);
      const filteredBy = Date.now() + 5000;
      while (!out().includes(`filter: ${key}`) && Date.now() < filteredBy) await new Promise((r) => setTimeout(r, 10));
      expect(out()).toContain(`filter: ${key}`);
      const lastFrame = out().slice(out().lastIndexOf('TIME'));
      const lines = lastFrame.split('\n').filter((l) => /\d\d:\d\d:\d\d\.\d{3} /.test(l));
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(l).toContain(key);
      stdin.write('q');
      const deadline = Date.now() + 5000;
      while (quit === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(quit).toBe(1);
    } finally {
      dashboard.stop();
      restore();
    }
  });

  it('shows a stage whose queue keeps growing as the bottleneck (red, inverse)', async () => {
    const { startDashboard, stdout, stdin, output, restore } = await inkTerminal();
    let t = Date.UTC(2026, 0, 1, 10, 0, 0);
    const stats = new PipelineStats({ now: () => t });
    for (let sec = 1; sec <= 4; sec++) {
      stats.add({ time: t, stage: 'workqueue', op: 'add', key: `k${sec}`, depth: sec * 10 });
      stats.add({ time: t, stage: 'fifo', op: 'Added', key: `k${sec}`, depth: 1 });
      t += 1000;
    }
    const dashboard = await startDashboard({
      info: { server: 'http://127.0.0.1:1', resources: 'pods' },
      stats,
      activity: new ActivityLog(),
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      onQuit: () => {},
      alternateScreen: false,
    });
    try {
      // red (31) and inverse (7) around the stage name, in either order
      // eslint-disable-next-line no-control-regex
      const BOTTLENECK = /\u001b\[(31|7)m(\u001b\[[\d;]*m)*workqueue/;
      const deadline = Date.now() + 5000;
      while (!output.text.includes('depth 40') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(output.text).toContain('depth 40');
      expect(output.text).toMatch(BOTTLENECK);
      // eslint-disable-next-line no-control-regex
      expect(output.text).not.toMatch(/\u001b\[(31|7)m(\u001b\[[\d;]*m)*fifo/);
    } finally {
      dashboard.stop();
      restore();
    }
  });
});

/** A fake terminal for ink (colours on, CI off: ink and chalk read both when first imported). */
async function inkTerminal() {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION, FORCE_COLOR: process.env.FORCE_COLOR };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  process.env.FORCE_COLOR = '1';
  const { startDashboard } = await import('../../src/render/live/dashboard.js');
  const output = { text: '' };
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 160, rows: 40 });
  stdout.write = ((s: string) => {
    output.text += s;
    return true;
  }) as typeof stdout.write;
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  const restore = () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  return { startDashboard, stdout, stdin, output, restore };
}

describe('the dashboard header of reconcile --exec and proxy', () => {
  it('gives the controller\'s counters on the wire, as the exit summary does, not those of kwatch\'s own informers', async () => {
    const { controllerTotals } = await import('../../src/cli/controller-totals.js');
    const { ClientSession } = await import('../../src/endpoint/client-session.js');
    const a = new ClientSession('ruby[10]', 'rest-client');
    Object.assign(a, { requests: 5, events: 7, relists: 1, expired: 1, writes: 2, bytes: 7200 });
    const b = new ClientSession('kubectl[11]', 'kubectl');
    Object.assign(b, { requests: 1, bytes: 100 });
    const state = controllerTotals({ clients: () => [a, b] });
    expect(state).toBe('requests=6 events=7 relists=1 expired=1 writes=2 bytes=7.3kB');
    // The fork's mirror informer relisted nothing: its counters are not what the header shows.
    const snap = new PipelineStats({ now: () => 4000 }).snapshot();
    const [what, line] = headerLines({ server: 'context "kind"', resources: 'ruby (writes overlay)', state: () => state }, snap);
    expect(what).toBe('server context "kind"  resource ruby (writes overlay)');
    expect(line).toMatch(/^up [\d.]+s {2}requests=6 events=7 relists=1 expired=1 writes=2 bytes=7\.3kB$/);
  });
});
