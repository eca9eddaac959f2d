// Crafted recordings through the built CLI: a line with t = 1e308, an event type WHATEVER or a numeric
// resourceVersion is one warning naming its line, and replay and reconcile --from-recording go on and finish.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTRIES, HEADER, pod, recordingText } from '../informer/recording/recording-fixture.js';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-crafted-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { KUBECONFIG: join(dir, 'no-kubeconfig'), KUBECACHEDIR: join(dir, 'cache') };

/** The fixture with crafted lines 4-6 inserted after the watch start. */
function craftedFile(): string {
  const file = join(dir, 'crafted.ndjson');
  const crafted = [
    { ...ENTRIES[2], t: 1e308 },
    { ...ENTRIES[2], event: { type: 'WHATEVER', object: pod('a', 101) } },
    { ...ENTRIES[2], event: { type: 'MODIFIED', object: { ...pod('a', 101), metadata: { name: 'a', namespace: 'default', resourceVersion: 101 } } } },
  ];
  writeFileSync(file, recordingText(HEADER, [...ENTRIES.slice(0, 2), ...crafted, ...ENTRIES.slice(2)]));
  return file;
}

const WARNINGS = [
  /^Warning: .*crafted\.ndjson: line 4 has "t" 1e\+308: it must be milliseconds since the recording started, from 0 to \d+ \(a year\); left out$/m,
  /^Warning: .*crafted\.ndjson: line 5 is an event of type "WHATEVER": not one of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR; left out$/m,
  /^Warning: .*crafted\.ndjson: line 6 is a MODIFIED event whose object has metadata.resourceVersion 101, not a string; left out$/m,
];

describe('crafted recording lines (built CLI)', () => {
  it('replay: one warning per bad line, then the recording replays as if they were not there', async () => {
    const file = craftedFile();
    const res = await kwatch(['replay', file, '-o', 'ndjson'], env);
    expect(res.code, res.stderr).toBe(0);
    for (const w of WARNINGS) expect(res.stderr).toMatch(w);
    expect(res.stderr).not.toMatch(/NaN/);
    const clean = join(dir, 'clean.ndjson');
    writeFileSync(clean, recordingText());
    const expected = await kwatch(['replay', clean, '-o', 'ndjson'], env);
    expect(res.stdout).toBe(expected.stdout);
  });

  it('reconcile --from-recording with t = 1e308 finishes', async () => {
    const module = join(dir, 'noop.mjs');
    writeFileSync(module, "export default { name: 'noop', for: 'pods', async reconcile() {} };\n");
    const res = await kwatch(['reconcile', '--with', module, '--from-recording', craftedFile(), '-o', 'ndjson'], env);
    expect(res.code, res.stderr).toBe(0);
    for (const w of WARNINGS) expect(res.stderr).toMatch(w);
    expect(res.stdout.split('\n').filter((l) => l.includes('"stage":"reconcile"')).length).toBeGreaterThan(0);
  }, 60_000);
});
