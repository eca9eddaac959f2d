import { describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { TraceSummary } from '../../src/render/summary.js';
import { stripAnsi } from '../../src/render/color.js';

const recs: TraceRecord[] = [
  { time: 1000, stage: 'http', op: 'response', bytes: 5000 },
  { time: 1100, stage: 'reflector', op: 'list-page', bytes: 5000, items: 3 },
  { time: 1200, stage: 'reflector', op: 'watch-start', rv: '10' },
  { time: 1300, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', bytes: 200 },
  { time: 1400, stage: 'watch', op: 'ADDED', type: 'ADDED', bytes: 300 },
  { time: 1500, stage: 'watch', op: 'ADDED', type: 'ADDED', bytes: 300 },
  { time: 1600, stage: 'reflector', op: 'expired' },
  { time: 1700, stage: 'reflector', op: 'relist' },
  { time: 1800, stage: 'reflector', op: 'backoff', ms: 800 },
  { time: 1900, stage: 'reflector', op: 'watch-start', rv: '20' },
  { time: 13_300, stage: 'fifo', op: 'Updated' },
];

describe('TraceSummary', () => {
  it('counts a reconnect per informer: the first watch of each resource is a start, not a reconnect', () => {
    const s = new TraceSummary();
    for (const name of ['deployments.apps', 'replicasets.apps', 'configmaps']) s.add({ time: 1, stage: 'reflector', op: 'watch-start', name });
    expect(s.toJSON().reconnects).toBe(0);
    s.add({ time: 2, stage: 'reflector', op: 'watch-start', name: 'configmaps' });
    expect(s.toJSON().reconnects).toBe(1);
  });

  it('counts records per stage and op, in vocabulary order', () => {
    const s = new TraceSummary();
    const tracer = new Tracer();
    tracer.subscribe(s.listener);
    for (const r of recs) tracer.emit(r);
    const j = s.toJSON();
    expect(Object.keys(j.stages.watch!)).toEqual(['ADDED', 'MODIFIED']);
    expect(j.stages.watch).toEqual({ ADDED: 2, MODIFIED: 1 });
    expect(j).toMatchObject({ records: 11, reconnects: 1, relists: 1, expired: 1, backoffs: 1, elapsedMs: 12_300 });
  });

  it('counts bytes once: http responses plus watch events, list pages only when http was not traced', () => {
    const s = new TraceSummary();
    recs.forEach((r) => s.add(r));
    expect(s.toJSON().bytes).toBe(5800);
    const noHttp = new TraceSummary();
    recs.slice(1).forEach((r) => noHttp.add(r));
    expect(noHttp.toJSON().bytes).toBe(5800);
  });

  it('formats a table of stages (cli-table3, no colour unless asked) then the totals line', () => {
    const s = new TraceSummary({ startedAt: 0, now: () => 12_300 });
    recs.forEach((r) => s.add(r));
    const text = s.format();
    expect(text).toBe(
      [
        '┌───────────┬───────┬─────────┬────────────────────────────────────────────────────────┐',
        '│ STAGE     │ TOTAL │ RECORDS │ OPS                                                    │',
        '├───────────┼───────┼─────────┼────────────────────────────────────────────────────────┤',
        '│ http      │     0 │       1 │ response=1                                             │',
        '│ reflector │     3 │       6 │ list-page=1 watch-start=2 relist=1 expired=1 backoff=1 │',
        '│ watch     │     3 │       3 │ ADDED=2 MODIFIED=1                                     │',
        '│ fifo      │     1 │       1 │ Updated=1                                              │',
        '└───────────┴───────┴─────────┴────────────────────────────────────────────────────────┘',
        'reconnects=1 relists=1 expired=1 backoffs=1 bytes=5.8kB elapsed=12.3s',
      ].join('\n'),
    );
    expect(text).not.toContain('\x1b');
    expect(text).not.toMatch(/ +$/m);
    const colored = s.format({ color: true });
    expect(colored).toContain('\x1b[');
    expect(stripAnsi(colored)).toBe(text);
  });
});
