import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRecording, readRecording, RecordingError } from '../../../src/informer/recording/recording-reader.js';
import { allOps, buildTimeline, positionAfter, startAfter, stateAt } from '../../../src/informer/recording/recording-timeline.js';
import { ENTRIES, HEADER, recordingText } from './recording-fixture.js';
import { tempDir } from '../../temp-dir.js';

describe('parseRecording', () => {
  it('reads the header, the entries and the start time', () => {
    const r = parseRecording(recordingText());
    expect(r.header.server).toBe('https://example.test:6443');
    expect([...r.entries()]).toHaveLength(ENTRIES.length);
    expect(r.count).toBe(ENTRIES.length);
    expect(r.startEpoch).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
    expect(r.truncated).toBeUndefined();
  });

  it("keeps the header's watch-list settings (the live reflector's bound and --fallback); one that cannot be read is left out, as in an older recording", () => {
    const watchList = { initialEventsEndTimeoutMs: 1000, fallbackWithoutInitialEventsEnd: true };
    expect(parseRecording(recordingText({ ...HEADER, watchList })).header.watchList).toEqual(watchList);
    expect(parseRecording(recordingText()).header.watchList).toBeUndefined();
    for (const bad of [{ initialEventsEndTimeoutMs: '1s', fallbackWithoutInitialEventsEnd: true }, { initialEventsEndTimeoutMs: -1, fallbackWithoutInitialEventsEnd: false }, { initialEventsEndTimeoutMs: 1000 }, 'yes', null]) {
      expect(parseRecording(recordingText({ ...HEADER, watchList: bad })).header.watchList).toBeUndefined();
    }
  });

  it('tolerates a last line cut short and reports where', () => {
    const text = recordingText();
    const cut = text.slice(0, text.length - 30);
    const r = parseRecording(cut, 'rec.ndjson');
    expect([...r.entries()]).toHaveLength(ENTRIES.length - 1);
    expect(r.truncated).toEqual({ line: ENTRIES.length + 1, bytes: expect.any(Number) });
  });

  it('refuses a damaged line that is not the last one', () => {
    const lines = recordingText().split('\n');
    lines[3] = lines[3].slice(0, 20);
    expect(() => parseRecording(lines.join('\n'), 'rec.ndjson')).toThrow('rec.ndjson: line 4 is not valid JSON: the recording is damaged');
  });

  it('says clearly when a file is not a recording', () => {
    expect(() => parseRecording('hello world\n', 'notes.txt')).toThrow(RecordingError);
    expect(() => parseRecording('hello world\n', 'notes.txt')).toThrow(/^notes.txt is not a kwatch recording: its first line is not JSON/);
    expect(() => parseRecording('{"kind":"PodList","items":[]}\n', 'pods.json')).toThrow(/^pods.json is not a kwatch recording: its first line is not a KwatchRecording header/);
    expect(() => parseRecording('', 'empty')).toThrow('empty is empty: not a kwatch recording');
  });

  it('refuses a newer format version with an upgrade hint', () => {
    const text = recordingText({ ...HEADER, formatVersion: 3, kwatchVersion: '9.0.0' });
    expect(() => parseRecording(text, 'new.ndjson')).toThrow('new.ndjson uses recording format 3, written by a newer kwatch (kwatch 9.0.0); this kwatch reads format 2: upgrade kwatch to replay it');
  });

  it('format 2: resources declared mid-recording join the header, writes are counted and never replayed', () => {
    const cm = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
    const lines = [
      { rec: 'resource', t: 5, res: 0, conn: 0, resource: cm },
      { ...ENTRIES[0], t: 6, res: 0 },
      { rec: 'write', t: 7, res: 0, conn: 0, client: 'manager', verb: 'create', key: 'ns/x', code: 201, mode: 'overlay' },
      { rec: 'resource', t: 8, res: 5, conn: 0, resource: cm },
    ];
    const r = parseRecording(recordingText({ ...HEADER, formatVersion: 2, resources: [] }, lines), 'exec.ndjson');
    expect(r.header.resources).toEqual([cm]);
    expect(r.writes).toBe(1);
    expect([...r.entries()]).toEqual([{ ...ENTRIES[0], t: 6, res: 0 }]);
    expect(r.badLines).toEqual([{ line: 5, problem: 'declares resource 5, but 1 are declared before it' }]);
    // A format-2 file that never declares a resource has nothing to replay.
    expect(() => parseRecording(recordingText({ ...HEADER, formatVersion: 2, resources: [] }, []), 'none.ndjson')).toThrow('none.ndjson: the recording names no resources (the recorded controller read nothing)');
    // Format 1 must name its resources in the header.
    expect(() => parseRecording(recordingText({ ...HEADER, resources: [] }, []), 'v1.ndjson')).toThrow('v1.ndjson: the recording header names no resources');
  });

  it('skips lines of kinds it does not know, and leaves out a line naming an unknown resource', () => {
    const r = parseRecording(recordingText(HEADER, [...ENTRIES, { rec: 'note', t: 1, res: 0, conn: 0, text: 'hi' }]));
    expect(r.skipped).toBe(1);
    const bad = parseRecording(recordingText(HEADER, [{ ...ENTRIES[0], res: 3 }, ENTRIES[1]]), 'r');
    expect(bad.badLines).toEqual([{ line: 2, problem: 'refers to resource 3, but the header lists 1' }]);
    expect([...bad.entries()]).toEqual([ENTRIES[1]]);
  });

  it('readRecording names a missing file', () => {
    const dir = tempDir('kwatch-rec-');
    try {
      expect(() => readRecording(join(dir, 'nope.ndjson'))).toThrow(`${join(dir, 'nope.ndjson')}: no such file`);
      writeFileSync(join(dir, 'ok.ndjson'), recordingText());
      expect([...readRecording(join(dir, 'ok.ndjson')).entries()]).toHaveLength(ENTRIES.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('recording timeline', () => {
  const ops = allOps(buildTimeline(ENTRIES));

  it('groups entries into the requests the client made, in order', () => {
    expect(ops.map((o) => o.kind)).toEqual(['list', 'watch', 'watch', 'list', 'watch']);
    expect(ops[1].kind === 'watch' && ops[1].events.map((e) => e.event.object.metadata.resourceVersion)).toEqual(['101', '102', '103', '104']);
    expect(ops[2].kind === 'watch' && ops[2].end?.reason).toBe('aborted');
  });

  it('groups the pages of one paged list together', () => {
    const paged = allOps(buildTimeline([
      { rec: 'list', t: 1, res: 0, conn: 1, options: { limit: 1 }, page: { metadata: { continue: 'k1' }, items: [] } },
      { rec: 'list', t: 2, res: 0, conn: 2, options: { limit: 1, continue: 'k1' }, page: { metadata: { resourceVersion: '5' }, items: [] } },
      { rec: 'list', t: 3, res: 0, conn: 3, options: { limit: 1 }, page: { metadata: { resourceVersion: '6' }, items: [] } },
    ]));
    expect(paged.map((o) => (o.kind === 'list' ? o.pages.length : -1))).toEqual([2, 1]);
  });

  it('rebuilds the state at a resourceVersion from the list and the events', () => {
    const at103 = stateAt(buildTimeline(ENTRIES), '103');
    expect(at103.items().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(['a@101', 'c@102']);
    expect(at103.resourceVersion).toBe('103');
  });

  it('finds the first event after a resourceVersion, or the relist that comes first', () => {
    expect(positionAfter(buildTimeline(ENTRIES), '103')).toEqual({ op: 1, event: 3 });
    expect(positionAfter(buildTimeline(ENTRIES), '105')).toEqual({ op: 3, event: 0 });
    expect(positionAfter(buildTimeline(ENTRIES), '200')).toBeUndefined();
    expect(startAfter(buildTimeline(ENTRIES), '105').t).toBe(700);
  });
});
