import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSnapshotDir, saveSnapshot } from '../../src/cli/snapshot-file.js';
import { ListProgress } from '../../src/render/list-progress.js';
import { tempDir } from '../temp-dir.js';

describe('ListProgress (the spinner line of a paged LIST)', () => {
  it('counts pages and objects, with the server\'s remainingItemCount as the estimated total', () => {
    const p = new ListProgress('pods');
    expect(p.add({ time: 0, stage: 'reflector', op: 'list-start' })).toBe(false);
    for (let page = 1; page <= 12; page++) p.add({ time: 0, stage: 'reflector', op: 'list-page', page, items: 500, remainingItemCount: 20_000 - page * 500 });
    expect(p.text()).toBe('listing pods: page 12, 6,000 of ~20,000 (remainingItemCount)');
    p.add({ time: 0, stage: 'reflector', op: 'list-page', page: 13, items: 10, continue: false });
    expect(p.text()).toBe('listing pods: page 13, 6,010');
  });
});

describe('snapshots', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes kwatch-snapshot-<time>.txt and never overwrites one', () => {
    dir = tempDir('kwatch-snap-');
    const at = new Date(Date.UTC(2026, 10, 26, 10, 5, 1, 123));
    const first = saveSnapshot('one\n', dir, at);
    const second = saveSnapshot('two\n', dir, at);
    expect(first).toBe(join(dir, 'kwatch-snapshot-2026-11-26T10-05-01.123Z.txt'));
    expect(second).toBe(join(dir, 'kwatch-snapshot-2026-11-26T10-05-01.123Z-2.txt'));
    expect(readFileSync(first, 'utf8')).toBe('one\n');
    expect(readdirSync(dir)).toHaveLength(2);
    expect(() => saveSnapshot('x', join(dir, 'missing'), at)).toThrow(/^cannot write .*missing.*ENOENT$/);
    expect(() => checkSnapshotDir(join(dir, 'missing'))).toThrow(/--snapshot-dir .*missing: no such folder/);
    expect(() => checkSnapshotDir(dir)).not.toThrow();
  });
});
