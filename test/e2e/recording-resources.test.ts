// A recording declaring more resources than kwatch replays is refused in one line, exit 1, by every command that
// reads recordings (issue 36: such a file took all memory or ran out of file descriptors).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-rec-resources-e2e-');

function declaredOnly(n: number): string {
  const header = { kind: 'KwatchRecording', formatVersion: 2, kwatchVersion: '0.1.0', server: 'https://x', resources: [], startTime: '2026-01-01T00:00:00.000Z', masked: true };
  const lines = [header, ...Array.from({ length: n }, (_, i) => ({ rec: 'resource', t: 0, res: i, conn: 0, resource: { group: 'example.com', version: 'v1', resource: `things${i}`, kind: `Thing${i}`, namespaced: true } }))];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('a recording of too many resources', () => {
  it('replay and reconcile --from-recording refuse 10,000 declared resources in one line, exit 1', { timeout: 60_000 }, async () => {
    const file = join(dir, 'many.ndjson');
    writeFileSync(file, declaredOnly(10_000));
    const expected = `error: ${file}: the recording declares more than 1000 resources (line 1002 is resource 1001): kwatch replays at most 1000\n`;
    const replay = await kwatch(['replay', file], {});
    expect(replay.code).toBe(1);
    expect(replay.stderr).toBe(expected);
    const reconcile = await kwatch(['reconcile', '--from-recording', file, '--exec', '--', 'true'], {});
    expect(reconcile.code).toBe(1);
    expect(reconcile.stderr).toMatch(/^error: .*many\.ndjson: the recording declares more than 1000 resources \(line 1002 is resource 1001\): kwatch replays at most 1000\n$/);
  });
});
