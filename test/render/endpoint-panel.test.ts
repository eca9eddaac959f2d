import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { EndpointStats } from '../../src/render/live/endpoint-panel.js';

const rec = (time: number, op: string, extra: Record<string, unknown> = {}): TraceRecord => ({ time, stage: 'endpoint', op, client: 'manager', ...extra });

describe('EndpointStats', () => {
  it('shows per client its request rate, open watches, relists and writes, then the newest derived records', () => {
    let now = 20_000;
    const s = new EndpointStats(() => now);
    for (let t = 10_000; t < 20_000; t += 500) s.add(rec(t, 'http', { status: 200 }));
    s.add(rec(15_000, 'http', { status: 503 }));
    s.add(rec(15_000, 'watch', { event: 'start' }));
    s.add(rec(15_001, 'watch', { event: 'start' }));
    s.add(rec(15_002, 'watch', { event: 'close', reason: '410' }));
    s.add(rec(15_003, 'relist', { resource: 'pods', reason: 'it was sent 410 Gone' }));
    s.add(rec(15_004, 'write', { key: 'a/b' }));
    s.add(rec(15_005, 'loop', { key: 'a/b', note: 'rewrote a/b 6 times' }));
    s.add({ time: 1, stage: 'reconcile', op: 'write' });
    expect(s.lines()).toEqual([
      'manager: 2.1 req/s (21)  watches open 1  relists 1  writes 1  failed 1',
      'relist manager pods: it was sent 410 Gone',
      'loop manager a/b: rewrote a/b 6 times',
    ]);
    now = 40_000;
    expect(s.lines()[0]).toMatch(/^manager: 0\.0 req\/s \(21\)/);
  });
});
