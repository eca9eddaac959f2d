// The `-o ndjson` trace `kwatch trace` reads: the ids and causes in the file are the ones it names.
import { describe, expect, it } from 'vitest';
import { explainKey } from '../../src/trace-export/causal-chain.js';
import { isWrite, rowsFromNdjson, TraceFileError, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { recordRun, stamper, writesDone } from './recorded-runs.js';

/** The lines `kwatch reconcile -o ndjson` prints of these rows: ISO times, null for a missing key or rv. */
function ndjson(rows: readonly TraceRow[]): string {
  return rows.map((r) => JSON.stringify({ ...r, time: new Date(r.time).toISOString(), key: r.key ?? null, rv: r.rv ?? null })).join('\n') + '\n';
}

describe('an -o ndjson trace read back', () => {
  it('with --once\'s verdict rows (no id) after a run of the default stages: every record keeps the id the file gives it', async () => {
    const run = await recordRun({ c: stamper(3) }, writesDone(3, 4));
    // kwatch reconcile's default --stages: the workqueue, the reconciles and the reflector's lifecycle.
    const shown = run.filter((r) => r.stage === 'workqueue' || r.stage === 'reconcile' || r.stage === 'reflector');
    const verdict = { time: new Date(run.at(-1)!.time).toISOString(), stage: 'reconcile', op: 'pending', key: 'ns/web', rv: null, controller: 'c', runs: 4, writes: 3, pendingWrites: 0, result: 'ok' };
    const rows = rowsFromNdjson(`${ndjson(shown)}${JSON.stringify(verdict)}\n`, 'trace.ndjson');
    expect(rows.slice(0, -1).map((r) => r.id)).toEqual(shown.map((r) => r.id));
    // The file's causes stay; the tracer's rules add the ones the hidden stages held.
    rows.slice(0, -1).forEach((r, i) => expect(r.cause ?? []).toEqual(expect.arrayContaining(shown[i].cause ?? [])));
    // The verdict row gets an id of its own, past every other.
    expect(rows.at(-1)).toMatchObject({ op: 'pending', id: Math.max(...shown.map((r) => r.id)) + 1 });
    // The chain goes on through the write each queue add was the echo of, though the watch events are hidden.
    const [w1, w2, w3] = shown.filter(isWrite);
    expect(explainKey(rows, 'ns/web')).toEqual([
      `ns/web: write #${w3.id} metadata.annotations.stamp by c ← reconcile #${w3.cause![0]} ← write #${w2.id} metadata.annotations.stamp by c ← reconcile #${w2.cause![0]} ← write #${w1.id} metadata.annotations by c ← reconcile #${w1.cause![0]}`,
      `loop: c rewrote ns/web 2 times, each time after the echo of its own write (metadata.annotations.stamp); since write #${w1.id}`,
    ]);
  });

  it('without ids (a trace from before they were written): ids and causes by the tracer\'s rules, times parsed', async () => {
    const run = await recordRun({ c: stamper(3) }, writesDone(3, 4));
    const text = ndjson(run.map(({ id: _id, cause: _cause, echoOf: _echoOf, ...r }) => r as TraceRow));
    const rows = rowsFromNdjson(text, 'old.ndjson');
    expect(rows.map((r) => [r.id, r.cause, r.echoOf, r.time])).toEqual(run.map((r) => [r.id, r.cause, r.echoOf, r.time]));
    expect(rows.some((r) => r.key === null || r.rv === null)).toBe(false);
    expect(explainKey(rows, 'ns/web')).toEqual(explainKey(run, 'ns/web'));
  });

  it('times as epoch ms or ISO text (0 when unreadable); blank lines skipped; null key and rv dropped', () => {
    const rows = rowsFromNdjson('{"stage":"watch","op":"ADDED","time":1700000000123.5,"key":null,"rv":null,"id":1}\n   \n{"stage":"watch","op":"DELETED","time":"2023-11-14T22:13:20.200Z","key":"ns/a","rv":"3","id":2}\n{"stage":"watch","op":"DELETED","time":"soon","id":3}\n', 't.ndjson');
    expect(rows).toEqual([{ stage: 'watch', op: 'ADDED', time: 1700000000123.5, id: 1 }, { stage: 'watch', op: 'DELETED', time: 1700000000200, key: 'ns/a', rv: '3', id: 2 }, { stage: 'watch', op: 'DELETED', time: 0, id: 3 }]);
  });

  it('a line that is not JSON, or not a trace record, is one error naming the file and line', () => {
    expect(() => rowsFromNdjson('{"stage":"watch","op":"ADDED","time":1}\n\nnot json\n', 'x.ndjson')).toThrow(new TraceFileError('x.ndjson:3: not a JSON line: an -o ndjson trace has one JSON object per line'));
    for (const line of ['{"op":"ADDED"}', '{"stage":"nope","op":"x"}', '{"stage":"watch"}', '7', 'null']) {
      expect(() => rowsFromNdjson(`${line}\n`, 'y.ndjson'), line).toThrow(new TraceFileError('y.ndjson:1: not a kwatch trace record (no known "stage" and "op")'));
    }
  });
});
