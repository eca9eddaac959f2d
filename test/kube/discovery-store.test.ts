// The discovery cache's two file stores on their own: what the cache (discovery-cache.ts) relies on to tell a miss
// from an unreadable file, to age files, and to replace them whole. discovery.test.ts and discovery-memory-store.test.ts
// drive them through a real discovery against the sim.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskDiscoveryStore, MEMORY_STORE_ROOT, MemoryDiscoveryStore } from '../../src/kube/discovery/discovery-store.js';
import { tempDir } from '../temp-dir.js';

describe('the disk store', () => {
  it('answers undefined for a file that is not there, also under a path whose folder is a file (kubectl\'s miss)', () => {
    const root = tempDir('kwatch-store-');
    const store = new DiskDiscoveryStore(root);
    expect(store.root).toBe(root);
    expect(store.modifiedMs(join(root, 'nope.json'))).toBeUndefined();
    expect(store.read(join(root, 'nope.json'))).toBeUndefined();
    writeFileSync(join(root, 'file'), 'x');
    expect(store.modifiedMs(join(root, 'file', 'servergroups.json'))).toBeUndefined();
    expect(store.read(join(root, 'file', 'servergroups.json'))).toBeUndefined();
  });

  it('throws for a file it cannot read or stat (a folder where the file should be, a name too long), so the cache reports it unreadable', () => {
    const root = tempDir('kwatch-store-');
    const store = new DiskDiscoveryStore(root);
    mkdirSync(join(root, 'servergroups.json'));
    expect(() => store.read(join(root, 'servergroups.json'))).toThrow(/EISDIR/);
    const tooLong = join(root, `${'x'.repeat(300)}.json`);
    expect(() => store.modifiedMs(tooLong)).toThrow(/ENAMETOOLONG/);
    expect(() => store.read(tooLong)).toThrow(/ENAMETOOLONG/);
  });

  it('writes through a temporary file renamed over the target: folders 0750, files 0660, nothing left beside it, its time the write\'s', () => {
    const root = tempDir('kwatch-store-');
    const store = new DiskDiscoveryStore(root);
    const file = join(root, 'discovery', 'host', 'apps', 'v1', 'serverresources.json');
    const before = Date.now();
    store.write(file, '{"first":true}');
    store.write(file, '{"second":true}');
    expect(store.read(file)).toBe('{"second":true}');
    expect(readFileSync(file, 'utf8')).toBe('{"second":true}');
    expect(statSync(file).mode & 0o777).toBe(0o660);
    expect(statSync(join(root, 'discovery', 'host', 'apps')).mode & 0o777).toBe(0o750 & ~process.umask());
    expect(readdirSync(join(root, 'discovery', 'host', 'apps', 'v1'))).toEqual(['serverresources.json']);
    // The file system's clock may round down by up to a second.
    expect(store.modifiedMs(file)).toBeGreaterThanOrEqual(before - 1000);
    expect(store.modifiedMs(file)).toBe(statSync(file).mtimeMs);
  });

  it('closes what it opens: many writes leave the process with the file descriptors it had', () => {
    if (!existsSync('/proc/self/fd')) return;
    const root = tempDir('kwatch-store-');
    const store = new DiskDiscoveryStore(root);
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 50; i++) store.write(join(root, 'servergroups.json'), `{"i":${i}}`);
    expect(open()).toBeLessThan(before + 10);
  });

  it('a write that cannot replace its target throws and leaves no temporary file behind', () => {
    const root = tempDir('kwatch-store-');
    const store = new DiskDiscoveryStore(root);
    // A folder (not empty) where the file should go: the rename fails.
    mkdirSync(join(root, 'servergroups.json', 'inside'), { recursive: true });
    expect(() => store.write(join(root, 'servergroups.json'), '{}')).toThrow();
    expect(readdirSync(root)).toEqual(['servergroups.json']);
  });
});

describe('the memory store', () => {
  it('keeps each path\'s last text, with its clock\'s time of that write, apart from every other path', () => {
    let now = 1_000;
    const store = new MemoryDiscoveryStore(() => now);
    expect(store.root).toBe(MEMORY_STORE_ROOT);
    expect(store.modifiedMs('a')).toBeUndefined();
    expect(store.read('a')).toBeUndefined();
    store.write('a', 'one');
    now = 2_000;
    store.write('b', 'two');
    expect(store.modifiedMs('a')).toBe(1_000);
    expect(store.modifiedMs('b')).toBe(2_000);
    now = 3_000;
    store.write('a', 'three');
    expect(store.read('a')).toBe('three');
    expect(store.modifiedMs('a')).toBe(3_000);
    expect(store.read('b')).toBe('two');
    expect(store.read('c')).toBeUndefined();
  });

  it('uses the wall clock unless given one', () => {
    const store = new MemoryDiscoveryStore();
    const before = Date.now();
    store.write('a', 'x');
    expect(store.modifiedMs('a')).toBeGreaterThanOrEqual(before);
    expect(store.modifiedMs('a')).toBeLessThanOrEqual(Date.now());
  });
});
