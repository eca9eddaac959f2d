// The pieces `kwatch replay RESOURCE` resumes with: the checkpoint file, the gap a relist covers, the
// words for an expired resourceVersion, and the limit that stops the stream.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLimit } from '../../../src/informer/event-limit.js';
import { FakeListerWatcher } from '../../../src/informer/fake-lister-watcher.js';
import { compareResourceVersions } from '../../../src/informer/resource-version.js';
import type { WatchEvent } from '../../../src/informer/types.js';
import { compareStates, summarizeGap } from '../../../src/kube/recording/baseline-gap.js';
import { CheckpointKeeper, readCheckpoint } from '../../../src/kube/recording/checkpoint.js';
import { explainExpired, parseTooOldMessage } from '../../../src/kube/recording/expired-resource-version.js';
import { pod } from './recording-fixture.js';
import { tempDir } from '../../temp-dir.js';

describe('checkpoint', () => {
  const dir = tempDir('kwatch-cp-');
  const base = { server: 'https://k8s.test', resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } };

  it('writes the first resourceVersion at once, later ones throttled, and flush() the latest; atomically', () => {
    let now = 1000;
    const path = join(dir, 'a.json');
    const keeper = new CheckpointKeeper(path, base, 1000, () => now);
    keeper.update('10');
    expect(readCheckpoint(path)).toMatchObject({ kind: 'KwatchCheckpoint', version: 1, resourceVersion: '10', server: 'https://k8s.test', resource: { resource: 'pods' } });
    keeper.update('11');
    keeper.update('12');
    expect(readCheckpoint(path).resourceVersion).toBe('10');
    now += 1000;
    keeper.flush();
    expect(readCheckpoint(path).resourceVersion).toBe('12');
    expect(keeper.writes).toBe(2);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses files that are not checkpoints, in one line', () => {
    const path = join(dir, 'b.json');
    writeFileSync(path, '{"kind":"Pod"}');
    expect(() => readCheckpoint(path)).toThrow(`${path} is not a kwatch checkpoint (written by kwatch replay --checkpoint)`);
    expect(() => readCheckpoint(join(dir, 'none.json'))).toThrow('no such checkpoint file');
    writeFileSync(path, JSON.stringify({ kind: 'KwatchCheckpoint', version: 7, resourceVersion: '1', server: 's', resource: { resource: 'pods' } }));
    expect(() => readCheckpoint(path)).toThrow('checkpoint of version 7');
    expect(readFileSync(path, 'utf8')).toContain('KwatchCheckpoint');
  });
});

describe('baseline gap', () => {
  it('lists objects new, changed (and recreated) or gone, by key', () => {
    const recreated = { ...pod('r', 30), metadata: { ...pod('r', 30).metadata, uid: 'other' } };
    const gap = compareStates([pod('a', 1), pod('b', 2), pod('r', 3), pod('same', 4)], [pod('a', 10), pod('c', 11), recreated, pod('same', 4)]);
    expect(gap).toEqual([
      { key: 'default/a', change: 'changed', rv: '10', baselineRv: '1' },
      { key: 'default/b', change: 'gone', baselineRv: '2' },
      { key: 'default/c', change: 'new', rv: '11' },
      { key: 'default/r', change: 'changed', rv: '30', baselineRv: '3', recreated: true },
    ]);
    expect(summarizeGap(gap)).toBe('1 new, 2 changed, 1 gone');
    expect(summarizeGap([])).toBe('no difference');
  });
});

describe('expired resourceVersion', () => {
  it('reads the requested and the oldest resumable resourceVersion from the watch cache\'s message', () => {
    expect(parseTooOldMessage('too old resource version: 1000 (2345)')).toEqual({ requested: '1000', oldest: '2345' });
    expect(parseTooOldMessage('The resourceVersion for the provided watch is too old.')).toEqual({});
  });

  it('explains what was asked, what the server has, why, and what to do, in one line', () => {
    const e = explainExpired({ resource: 'pods', requested: '1000', serverMessage: 'too old resource version: 1000 (2345)' });
    expect(e.message).not.toContain('\n');
    expect(e.message).toMatch(/^resourceVersion 1000 of pods is too old: the server no longer has the changes after it; the oldest it can still resume from is 2345/);
    expect(e.message).toContain('etcd compacts old revisions');
    expect(e.message).toContain('resume from a newer resourceVersion (2345 or later), or pass --on-expired relist');
    expect(e.oldest).toBe('2345');
  });
});

describe('EventLimit', () => {
  const ev = (type: WatchEvent['type'], rv: number): WatchEvent => ({ type, object: pod('x', rv) });

  it('--until-rv admits up to the resourceVersion and holds back the first newer event', () => {
    const limit = new EventLimit({ untilRv: '12' });
    expect([ev('MODIFIED', 11), ev('BOOKMARK', 12), ev('MODIFIED', 13)].map((e) => limit.admit(e))).toEqual([true, true, false]);
    expect(limit.reason).toBe('until-rv');
    const past = new EventLimit({ untilRv: '12' });
    expect([ev('MODIFIED', 11), ev('MODIFIED', 14)].map((e) => past.admit(e))).toEqual([true, false]);
  });

  it('--max-events counts object events only, and stops a real stream there', async () => {
    const fake = new FakeListerWatcher();
    const limit = new EventLimit({ maxEvents: 2 });
    const stream = await limit.wrap(fake).watch({ resourceVersion: fake.resourceVersion });
    fake.apply(pod('a', 0));
    fake.apply(pod('a', 0));
    fake.apply(pod('a', 0));
    const got: string[] = [];
    for await (const e of stream) {
      got.push(e.type);
      if (got.length === 2) setTimeout(() => stream.close(), 20);
    }
    expect(got).toEqual(['ADDED', 'MODIFIED']);
    expect(limit.reason).toBe('max-events');
  });

  it('orders resourceVersions as etcd revisions and refuses others', () => {
    expect(compareResourceVersions('9', '10')).toBeLessThan(0);
    expect(() => compareResourceVersions('abc', '10')).toThrow('resourceVersion "abc" is not a number');
  });
});
