import { afterEach, describe, expect, it, vi } from 'vitest';
import { inkDrawsLive, plainPeriodic, RowChanges } from '../../src/render/live-table.js';

afterEach(() => vi.useRealTimers());

describe('RowChanges', () => {
  it('reports new and changed rows by key, nothing on the first frame', () => {
    const c = new RowChanges();
    expect(c.next([['node-1', '3'], ['node-2', '1']]).size).toBe(0);
    expect([...c.next([['node-1', '4'], ['node-2', '1'], ['node-3', '1']])]).toEqual(['node-1', 'node-3']);
    expect(c.next([['node-1', '4'], ['node-2', '1'], ['node-3', '1']]).size).toBe(0);
  });
});

describe('plainPeriodic', () => {
  it('writes a timestamped table block at start and on each interval, naming changed rows', () => {
    vi.useFakeTimers();
    let count = 1;
    let out = '';
    const view = plainPeriodic({
      headers: ['NODE', 'PODS'],
      getRows: () => [['node-1', String(count)], ['node-2', '5']],
      intervalMs: 1000,
      stream: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream,
      now: () => new Date(2026, 0, 1, 10, 0, 0).getTime(),
    });
    expect(out).toBe('--- 10:00:00.000 ---\nNODE     PODS\nnode-1   1\nnode-2   5\n');
    count = 2;
    vi.advanceTimersByTime(1000);
    view.stop();
    vi.advanceTimersByTime(5000);
    expect(out.split('--- ').length - 1).toBe(2);
    expect(out.endsWith('node-1   2\nnode-2   5\nchanged: node-1\n')).toBe(true);
  });
});

describe('renderLiveTable', () => {
  it('draws the table with ink and highlights a row whose value changed', async () => {
    // ink colours through chalk, which decides from process.stdout (a pipe under vitest) at import time,
    // and draws only the last frame when CI is set (is-in-ci, also read at import time).
    process.env.FORCE_COLOR = '1';
    const ciVars = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
    const { renderLiveTable } = await import('../../src/render/live-table.js');
    let frames = '';
    const stream = {
      isTTY: true,
      columns: 80,
      rows: 24,
      write: (s: string) => ((frames += s), true),
      on: () => stream,
      off: () => stream,
      once: () => stream,
      removeListener: () => stream,
      listenerCount: () => 0,
    };
    // yellow SGR, then the changed row on the same line
    const HIGHLIGHTED = new RegExp(String.raw`\u001b\[33m[^\n]*node-1 {3}2`);
    let count = 1;
    const view = await renderLiveTable({
      headers: ['NODE', 'PODS'],
      getRows: () => [['node-1', String(count)]],
      intervalMs: 20,
      stream: stream as unknown as NodeJS.WritableStream,
      title: () => 'index nodeName',
    });
    const deadline = Date.now() + 2000;
    while (!frames.includes('node-1   1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(frames).toContain('index nodeName');
    count = 2;
    while (!HIGHLIGHTED.test(frames) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    view.stop();
    delete process.env.FORCE_COLOR;
    for (const [k, v] of Object.entries(ciVars)) if (v !== undefined) process.env[k] = v;
    expect(frames).toMatch(HIGHLIGHTED);
  });
});

describe('inkDrawsLive', () => {
  it('is false when CI or CONTINUOUS_INTEGRATION is set, as ink decides', () => {
    expect(inkDrawsLive({})).toBe(true);
    expect(inkDrawsLive({ CI: 'true' })).toBe(false);
    expect(inkDrawsLive({ CI: '' })).toBe(false);
    expect(inkDrawsLive({ CI: 'false' })).toBe(true);
    expect(inkDrawsLive({ CONTINUOUS_INTEGRATION: '1' })).toBe(false);
  });
});

describe('startLiveView', () => {
  it('uses plain blocks on a TTY when CI is set, since ink would draw nothing until exit', async () => {
    const { startLiveView } = await import('../../src/render/live-table.js');
    let out = '';
    const stream = { isTTY: true, write: (s: string) => ((out += s), true) };
    const view = await startLiveView(
      { headers: ['NODE', 'PODS'], getRows: () => [['node-1', '1']], intervalMs: 60_000, stream: stream as unknown as NodeJS.WritableStream },
      { CI: 'true' },
    );
    view.stop();
    expect(out).toMatch(/^--- \d\d:\d\d:\d\d\.\d{3} ---\nNODE {5}PODS\nnode-1 {3}1\n$/);
  });

  it('falls back to plain blocks when the stream is not a TTY', async () => {
    const { startLiveView } = await import('../../src/render/live-table.js');
    let out = '';
    const view = await startLiveView({
      headers: ['NODE', 'PODS'],
      getRows: () => [['node-1', '1']],
      intervalMs: 60_000,
      stream: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream,
    });
    view.stop();
    expect(out).toMatch(/^--- \d\d:\d\d:\d\d\.\d{3} ---\nNODE {5}PODS\nnode-1 {3}1\n$/);
  });
});
