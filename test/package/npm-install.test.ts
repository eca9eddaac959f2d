// The npm package as a user installs it: `npm pack`, then `npm install -g` of the tarball into a temporary prefix
// gives `kwatch` and `kubectl-kwatch`, and kubectl finds the plugin on PATH. Needs `npm run build` first (dist/).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL } from '../kube/kubectl.js';
import { tempDir } from '../temp-dir.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = tempDir('kwatch-npm-install-');
const prefix = join(dir, 'prefix');
// The test HOME is a fresh folder: point npm at the user's download cache so dependencies come from it when they can.
const npmCache = process.env.npm_config_cache ?? join(userInfo().homedir, '.npm');
const npmEnv = { ...process.env, npm_config_cache: npmCache, npm_config_update_notifier: 'false' };

describe('bin/ on PATH', () => {
  it('gives both kwatch and kubectl-kwatch (kubectl finds the plugin)', async () => {
    const kubectlDirs = KUBECTL.includes('/') ? [dirname(KUBECTL)] : [];
    const env = { ...process.env, PATH: [join(ROOT, 'bin'), ...kubectlDirs, dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)].join(delimiter) };
    expect((await run('kwatch', ['--version'], { env })).stdout).toMatch(/^kwatch\/\d+\.\d+\.\d+ /);
    expect((await run(KUBECTL.includes('/') ? KUBECTL : 'kubectl', ['kwatch', '--version'], { env })).stdout).toMatch(/^kwatch\/\d+\.\d+\.\d+ /);
  });
});

describe('npm pack + npm install -g of the tarball', () => {
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run npm run build first');
    await run('npm', ['pack', ROOT, '--pack-destination', dir, '--silent'], { env: npmEnv, cwd: dir });
    const tarball = readdirSync(dir).find((f) => /^kwatch-.*\.tgz$/.test(f));
    if (!tarball) throw new Error(`npm pack wrote no kwatch-*.tgz in ${dir}`);
    await run('npm', ['install', '-g', '--prefix', prefix, join(dir, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      env: npmEnv,
      cwd: dir,
      timeout: 150_000,
    });
  }, 180_000);

  it('installs kwatch and kubectl-kwatch; `kubectl kwatch events` runs through kubectl\'s plugin lookup', async () => {
    const bin = join(prefix, 'bin');
    expect(readdirSync(bin).sort()).toEqual(['kubectl-kwatch', 'kubectl_complete-kwatch', 'kwatch']);
    // Only the prefix's bin, kubectl's folder and node's: no kwatch from the repository.
    const kubectlDir = KUBECTL.includes('/') ? dirname(KUBECTL) : undefined;
    const PATH = [bin, ...(kubectlDir ? [kubectlDir] : []), dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)].join(delimiter);
    const env = { ...process.env, PATH, NO_COLOR: '1' };
    const version = await run('kwatch', ['--version'], { env, cwd: dir });
    expect(version.stdout).toMatch(/^kwatch\/\d+\.\d+\.\d+ /);
    const plugin = await run(KUBECTL.includes('/') ? KUBECTL : 'kubectl', ['kwatch', 'events', 'pods', '--sim', '--sim-churn', '50', '--max-events', '1', '-o', 'ndjson'], { env, cwd: dir, timeout: 60_000 });
    const records = plugin.stdout.trim().split('\n').map((line) => JSON.parse(line) as { stage: string });
    expect(records.filter((r) => r.stage === 'watch')).toHaveLength(1);
    const help = await run(KUBECTL.includes('/') ? KUBECTL : 'kubectl', ['kwatch', 'events', '--help'], { env, cwd: dir });
    expect(help.stdout).toContain('kubectl kwatch events');
  }, 90_000);
});
