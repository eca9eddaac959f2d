// Recordings are read as a stream: the reader holds one chunk and one line, never the file, and a replay
// keeps the state and the events it has not passed, not the recording. Crafted lines are named and left out.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLines, type LineReaderStats } from '../../../src/informer/recording/line-reader.js';
import { MAX_ENTRY_T_MS } from '../../../src/informer/recording/recording-entry-check.js';
import type { RecordingEntry } from '../../../src/informer/recording/recording-format.js';
import { parseRecording, readRecording } from '../../../src/informer/recording/recording-reader.js';
import { RecordedListerWatcher } from '../../../src/informer/recording/recorded-lister-watcher.js';
import { buildTimeline, type RecordedWatch } from '../../../src/informer/recording/recording-timeline.js';
import { VirtualClock } from '../../../src/informer/recording/virtual-clock.js';
import { replayRecording } from '../../../src/informer/recording/replay-recording.js';
import { Tracer, type TraceRecord } from '../../../src/informer/trace.js';
import { ENTRIES, HEADER, pod, recordingText } from './recording-fixture.js';
import { tempDir } from '../../temp-dir.js';

const dir = tempDir('kwatch-rec-stream-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One list, then one watch connection of `events` MODIFIED events over 10 pods. */
function longRecording(events: number): string {
  const entries: RecordingEntry[] = [
    { rec: 'list', t: 1, res: 0, conn: 1, options: {}, page: { metadata: { resourceVersion: '100' }, items: Array.from({ length: 10 }, (_, i) => pod(`p${i}`, 90)) } },
    { rec: 'watch-start', t: 2, res: 0, conn: 2, options: { resourceVersion: '100' } },
  ];
  for (let i = 0; i < events; i++) entries.push({ rec: 'event', t: 3 + i, res: 0, conn: 2, event: { type: 'MODIFIED', object: pod(`p${i % 10}`, 101 + i) } });
  return recordingText(HEADER, entries);
}

describe('the line reader', () => {
  it('holds one chunk and the line it assembles, whatever the file size, and splits lines across chunks exactly', () => {
    const text = longRecording(2000);
    const file = join(dir, 'long.ndjson');
    writeFileSync(file, text);
    const stats: LineReaderStats = { peakHeldBytes: 0 };
    const lines = [...readLines(file, { chunkBytes: 64 }, stats)].map((l) => l.text);
    expect(lines.join('\n') + '\n').toBe(text);
    const longest = Math.max(...text.split('\n').map((l) => Buffer.byteLength(l)));
    expect(text.length).toBeGreaterThan(100 * longest);
    expect(stats.peakHeldBytes).toBeLessThanOrEqual(64 + longest);
  });

  it('reports a last line without a newline, and refuses a line over the bound in one line', () => {
    const file = join(dir, 'cut.ndjson');
    writeFileSync(file, 'one\ntwo\nthr');
    expect([...readLines(file, { chunkBytes: 3 })]).toEqual([
      { text: 'one', number: 1, unterminated: false, end: 4 },
      { text: 'two', number: 2, unterminated: false, end: 8 },
      { text: 'thr', number: 3, unterminated: true, end: 11 },
    ]);
    writeFileSync(file, recordingText(HEADER, [ENTRIES[0], { ...ENTRIES[1], pad: 'x'.repeat(5000) }]));
    expect(() => readRecording(file, { chunkBytes: 256, maxLineBytes: 4096 })).toThrow(/^.*cut\.ndjson: line 3 is longer than 4096 bytes: not a line kwatch writes/);
  });
});

describe('a replay keeps what it has not passed, not the recording', () => {
  it('a 20,000-event watch served to a reflector: the timeline never holds more than a release batch of passed events', async () => {
    const timeline = buildTimeline(parseRecording(longRecording(20_000)).entries());
    const lw = new RecordedListerWatcher({ timeline, clock: new VirtualClock(1e9), startEpoch: 0 });
    expect((await lw.list({})).items).toHaveLength(10);
    const stream = await lw.watch({ resourceVersion: '100' });
    const watch = timeline.op(1) as RecordedWatch;
    let events = 0;
    let peakHeld = 0;
    for await (const ev of stream) {
      expect(ev.object.metadata.resourceVersion).toBe(String(101 + events));
      events++;
      peakHeld = Math.max(peakHeld, watch.events.length);
      if (events === 20_000) break;
    }
    expect(peakHeld).toBeGreaterThan(0);
    expect(peakHeld).toBeLessThanOrEqual(1025);
  });

  it('replays the whole of it to the end', async () => {
    let events = 0;
    const tracer = new Tracer();
    tracer.subscribe((r: TraceRecord) => void (r.stage === 'watch' && r.op === 'MODIFIED' && events++));
    const result = await replayRecording({ recording: parseRecording(longRecording(5000)), tracer, signal: new AbortController().signal });
    expect(result.stoppedBy).toBe('end');
    expect(events).toBe(5000);
  });
});

describe('crafted lines are named by number and left out; the rest replays', () => {
  const crafted: [string, object, RegExp][] = [
    ['t = 1e308', { ...ENTRIES[2], t: 1e308 }, /has "t" 1e\+308: it must be milliseconds since the recording started, from 0 to \d+ \(a year\)/],
    ['a negative t', { ...ENTRIES[2], t: -5 }, /has "t" -5/],
    ['an event type WHATEVER', { ...ENTRIES[2], event: { type: 'WHATEVER', object: pod('a', 101) } }, /is an event of type "WHATEVER": not one of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR/],
    ['a numeric resourceVersion', { ...ENTRIES[2], event: { type: 'MODIFIED', object: { ...pod('a', 101), metadata: { name: 'a', namespace: 'default', resourceVersion: 101 } } } }, /is a MODIFIED event whose object has metadata.resourceVersion 101, not a string/],
    ['a list item with a numeric name', { ...ENTRIES[0], page: { metadata: { resourceVersion: '100' }, items: [{ metadata: { name: 7 } }] } }, /is a list page whose item 0 has metadata.name 7, not a string/],
    ['a fractional conn', { ...ENTRIES[2], conn: 1.5 }, /has "conn" 1.5/],
    ['a watch end with an unknown reason', { ...ENTRIES[6], reason: 'bored' }, /is a watch end with reason "bored"/],
    ['an error of op delete', { rec: 'error', t: 5, res: 0, conn: 9, op: 'delete', options: {}, message: 'x' }, /is an error of op "delete"/],
  ];
  for (const [what, line, problem] of crafted) {
    it(what, () => {
      const r = parseRecording(recordingText(HEADER, [...ENTRIES.slice(0, 2), line, ...ENTRIES.slice(2)]), 'r');
      expect(r.badLineCount).toBe(1);
      expect(r.badLines[0].line).toBe(4);
      expect(r.badLines[0].problem).toMatch(problem);
      expect(r.count).toBe(ENTRIES.length);
      expect(r.lastT).toBeLessThanOrEqual(MAX_ENTRY_T_MS);
    });
  }

  it('a recording of a million bad lines keeps the first hundred messages and counts the rest', () => {
    const line = JSON.stringify({ ...ENTRIES[2], t: 1e308 });
    const r = parseRecording(recordingText(HEADER, ENTRIES) + `${line}\n`.repeat(5000), 'r');
    expect(r.badLineCount).toBe(5000);
    expect(r.badLines).toHaveLength(100);
  });
});
