// kwatch proxy --kubeconfig-out (built CLI): the kubeconfig it writes is private (0600), and a symlink planted at that
// path is replaced by the file, never followed to write through it.
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endpointKubeconfigYaml } from '../../src/endpoint/endpoint-kubeconfig.js';
import { kwatch } from './events-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-e2e-proxy-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kwatch proxy --kubeconfig-out', () => {
  it('writes the kubeconfig 0600 and replaces a symlink planted there instead of following it', { timeout: 120_000 }, async () => {
    // The link points at a file that looks like kwatch's own, so kwatch agrees to replace what is at the path.
    const victim = join(dir, 'elsewhere.kubeconfig');
    const planted = endpointKubeconfigYaml({ server: 'http://127.0.0.1:1/kwatch-old', token: 'old', namespace: 'default' });
    writeFileSync(victim, planted, { mode: 0o644 });
    const out = join(dir, 'ctrl.kubeconfig');
    symlinkSync(victim, out);
    const r = await kwatch(['proxy', '--sim', '--kubeconfig-out', out, '--for', '1s'], {});
    expect(r.code, r.stderr).toBe(0);
    const st = lstatSync(out);
    expect(st.isSymbolicLink()).toBe(false);
    expect(st.mode & 0o777).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toMatch(/server: https?:\/\/127\.0\.0\.1:\d+\/kwatch-/);
    expect(readFileSync(victim, 'utf8')).toBe(planted);
    expect(lstatSync(victim).mode & 0o777).toBe(0o644);
  });
});
