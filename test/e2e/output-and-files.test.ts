// The built CLI (node bin/run.js) against --sim: a stdout that cannot be written ends in one line, and the
// files kwatch writes (--checkpoint, --record) are 0600 regular files, never a FIFO, a device or a symlink.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-files-');
const mode = (path: string) => statSync(path).mode & 0o777;

/** Runs kwatch through a shell with stdout sent to /dev/full (every write fails with ENOSPC). */
function kwatchToFullDisk(args: string[]): Promise<{ stderr: string; code: number }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', `${quoted} > /dev/full`], { env: childEnv({}), timeout: 30_000 }, (err, _stdout, stderr) =>
      resolve({ stderr, code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0 }),
    );
  });
}

describe('a stdout that cannot be written (> /dev/full)', () => {
  const line = 'error: cannot write to standard output: no space left on device (ENOSPC)\n';

  it('ends a one-shot command (list) with one line and exit 1, no stack', async () => {
    const res = await kwatchToFullDisk(['list', 'pods', '--sim']);
    expect(res.stderr).toBe(line);
    expect(res.code).toBe(1);
  });

  it('stops a watching command (events) with one line and exit 1, no stack and no summary', async () => {
    const res = await kwatchToFullDisk(['events', 'pods', '--sim', '-o', 'ndjson']);
    expect(res.stderr).toBe(line);
    expect(res.code).toBe(1);
  });
});

describe('--checkpoint and --record files', () => {
  it('--checkpoint in a missing directory fails at once in one line, not as a kwatch bug', async () => {
    const res = await kwatch(['replay', 'pods', '--sim', '--from-rv', '1', '--checkpoint', '/nonexistent/ck'], {});
    expect(res.stderr).toBe('error: cannot write the checkpoint to /nonexistent/ck: the directory /nonexistent does not exist\n');
    expect(res.code).toBe(1);
    expect(existsSync('/nonexistent')).toBe(false);
  });

  it('--checkpoint refuses a FIFO and a symbolic link, which stay as they were', async () => {
    const fifo = join(dir, 'ck.fifo');
    execFileSync('mkfifo', [fifo]);
    const res = await kwatch(['replay', 'pods', '--sim', '--from-rv', '1', '--checkpoint', fifo], {});
    expect(res.stderr).toBe(`error: refusing to write the checkpoint to ${fifo}: it is a named pipe (FIFO), not a regular file (kwatch creates or replaces only regular files; give another path)\n`);
    expect(res.code).toBe(1);
    expect(lstatSync(fifo).isFIFO()).toBe(true);

    const target = join(dir, 'precious');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'ck-link.json');
    symlinkSync(target, link);
    const viaLink = await kwatch(['replay', 'pods', '--sim', '--from-rv', '1', '--checkpoint', link], {});
    expect(viaLink.stderr).toContain(`refusing to write the checkpoint to ${link}: it is a symbolic link`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('proxy --kubeconfig-out replaces a symbolic link planted at <kubeconfig>.ca.crt, never writing the CA through it', async () => {
    const target = join(dir, 'precious-ca');
    writeFileSync(target, 'keep me');
    const out = join(dir, 'proxy-kc');
    symlinkSync(target, `${out}.ca.crt`);
    const res = await kwatch(['proxy', '--sim', '--kubeconfig-out', out, '--for', '1ms'], {});
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(lstatSync(`${out}.ca.crt`).isFile()).toBe(true);
    expect(readFileSync(`${out}.ca.crt`, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(mode(`${out}.ca.crt`)).toBe(0o600);
  });

  it('--checkpoint and events --record create 0600 files, with no temporary file left', async () => {
    const cp = join(dir, 'ck.json');
    const replay = await kwatch(['replay', 'pods', '--sim', '--sim-churn', '50', '--from-rv', '1', '--max-events', '2', '-o', 'ndjson', '--checkpoint', cp], {});
    expect(replay.code).toBe(0);
    expect(mode(cp)).toBe(0o600);
    const rec = join(dir, 'rec.ndjson');
    const events = await kwatch(['events', 'pods', '--sim', '--until-synced', '-o', 'ndjson', '--record', rec], {});
    expect(events.code).toBe(0);
    expect(mode(rec)).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
