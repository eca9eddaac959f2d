// The sim's kubeconfig holds credentials: it is written 0600, and a symlink (or a looser file) at the target is
// replaced, never followed.
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../src/sim/kubeconfig.js';
import { tempDir } from '../temp-dir.js';

const fresh = () => tempDir('kwatch-kubeconfig-file-');

describe('writing the sim kubeconfig', () => {
  it('writes a new file with mode 0600', async () => {
    const file = join(fresh(), 'kubeconfig');
    await writeKubeconfig(file, 'http://127.0.0.1:1');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('server: http://127.0.0.1:1');
  });

  it('makes an existing 0644 file 0600', async () => {
    const file = join(fresh(), 'kubeconfig');
    writeFileSync(file, 'old', { mode: 0o644 });
    chmodSync(file, 0o644);
    await writeKubeconfig(file, 'http://127.0.0.1:2');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('127.0.0.1:2');
  });

  it('replaces a symlink at the target instead of writing through it', async () => {
    const dir = fresh();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'do not touch\n', { mode: 0o644 });
    const file = join(dir, 'kubeconfig');
    symlinkSync(victim, file);
    await writeKubeconfig(file, 'http://127.0.0.1:3');
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('does not follow a dangling symlink either', async () => {
    const dir = fresh();
    const file = join(dir, 'kubeconfig');
    symlinkSync(join(dir, 'created-through-the-link'), file);
    await writeKubeconfig(file, 'http://127.0.0.1:4');
    expect(() => statSync(join(dir, 'created-through-the-link'))).toThrow();
    expect(lstatSync(file).isFile()).toBe(true);
  });

  it('refuses a folder every user may write to (without the sticky bit), where another user could swap the file', async () => {
    const dir = join(fresh(), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    await expect(writeKubeconfig(join(dir, 'kubeconfig'), 'http://127.0.0.1:5')).rejects.toThrow(/writable by every user/);
  });
});
