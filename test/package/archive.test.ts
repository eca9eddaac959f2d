// The release archive writers: the same entries give the same bytes (release sha256s depend on it), and what the
// tar writer writes its reader reads back.
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the packaging scripts, without types
import { readTarGz, tarGz, zip } from '../../scripts/package/archive.js';
import { tempDir } from '../temp-dir.js';

const ENTRIES = [
  { name: 'kwatch/bin/kwatch', data: Buffer.from('#!/bin/sh\necho kwatch\n'), mode: 0o755 },
  { name: 'kwatch/LICENSE', data: Buffer.from('a'), mode: 0o644 },
  { name: 'kwatch/empty', data: Buffer.alloc(0), mode: 0o600 },
];
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('release archives', () => {
  it('tar: the same bytes as before the writers shared their header code', () => {
    // The tar inside the gzip: gzip's own bytes may differ between zlib builds (Node 20 and 24).
    expect(sha(gunzipSync(tarGz(ENTRIES)))).toBe('b45da0e94756eb01b483bc5a9f469f860392a4d72c39e575f72bb83e37482a89');
  });

  it('zip: the same bytes as before the writers shared their header code', () => {
    expect(sha(zip(ENTRIES))).toBe('0685ff3a1d86f7298722a6b60a3d1afdc7d1ba418cd456e299b0ced7fc4c0ec5');
  });

  it('tar: reads back every entry with its data and mode', () => {
    const dir = tempDir('kwatch-archive-');
    const file = join(dir, 'a.tar.gz');
    writeFileSync(file, tarGz(ENTRIES));
    const files = readTarGz(file) as Map<string, { data: Buffer; mode: number }>;
    rmSync(dir, { recursive: true });
    expect([...files].map(([name, f]) => [name, f.data.toString(), f.mode])).toEqual(ENTRIES.map((e) => [e.name, e.data.toString(), e.mode]));
  });
});
