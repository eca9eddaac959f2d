// `npm run package` as a release is built (linux-x64 only, as CI builds it): the archive, its sha256 file, the krew
// manifest generated from it, and the single executable started with no Node anywhere on PATH.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../temp-dir.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const dir = tempDir('kwatch-release-');
const out = join(dir, 'release');
const manifestPath = join(dir, 'kwatch.yaml');
const ARCHIVE = `kubectl-kwatch-${version}-linux-x64.tar.gz`;
const unpacked = join(dir, 'unpacked');
// Node binaries are cached across runs (the test HOME is a fresh folder each time): the user's cache, as `npm run package` uses.
const cache = process.env.KWATCH_PACKAGE_CACHE ?? join(userInfo().homedir, '.cache', 'kwatch-package');

/** util-linux's script(1): runs a command on a pseudo-terminal, as --live needs. */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

interface KrewPlatform {
  selector?: { matchLabels?: { os?: string; arch?: string } };
  uri?: string;
  sha256?: string;
  bin?: string;
}

describe.runIf(process.platform === 'linux' && process.arch === 'x64')('npm run package (linux-x64)', () => {
  let packageLog = '';
  beforeAll(async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'package', '--', '--out', out, '--manifest', manifestPath], {
      cwd: ROOT,
      env: { ...process.env, KWATCH_PACKAGE_CACHE: cache },
      maxBuffer: 16 << 20,
    });
    packageLog = stdout;
    mkdirSync(unpacked);
    await run('tar', ['xzf', join(out, ARCHIVE), '-C', unpacked]);
  }, 600_000);

  it('builds only the linux-x64 archive by default, with a sha256 file sha256sum can check', async () => {
    expect(readdirSync(out).sort()).toEqual([ARCHIVE, `${ARCHIVE}.sha256`]);
    expect(readFileSync(join(out, `${ARCHIVE}.sha256`), 'utf8')).toBe(`${sha256(join(out, ARCHIVE))}  ${ARCHIVE}\n`);
    const { stdout } = await run('tar', ['tzvf', join(out, ARCHIVE)]);
    const entries = stdout.trim().split('\n').map((line) => ({ mode: line.split(/\s+/)[0], name: line.split(/\s+/).pop() }));
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(['kubectl-kwatch', 'LICENSE']));
    expect(entries.find((e) => e.name === 'kubectl-kwatch')?.mode).toBe('-rwxr-xr-x');
    expect(packageLog).toMatch(/linux-x64: kubectl-kwatch-\S+-linux-x64\.tar\.gz \d+\.\d MB/);
  });

  it('writes a krew manifest with the fields krew requires, one platform per archive, each sha256 matching its archive', () => {
    const manifest = parse(readFileSync(manifestPath, 'utf8')) as Record<string, any>;
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(manifest.metadata).toEqual({ name: 'kwatch' });
    expect(manifest.spec.version).toBe(`v${version}`);
    for (const field of ['homepage', 'shortDescription', 'description', 'caveats']) expect(typeof manifest.spec[field], field).toBe('string');
    expect(manifest.spec.shortDescription.length).toBeLessThanOrEqual(60); // krew-index's limit
    const platforms = manifest.spec.platforms as KrewPlatform[];
    const archives = readdirSync(out).filter((f) => !f.endsWith('.sha256'));
    expect(platforms).toHaveLength(archives.length);
    for (const p of platforms) {
      const archive = archives.find((a) => p.uri?.endsWith(`/${a}`));
      expect(archive, `${p.uri} names an archive that was built`).toBeDefined();
      expect(p.sha256).toBe(sha256(join(out, archive!)));
      expect(p.selector?.matchLabels).toEqual({ os: 'linux', arch: 'amd64' });
      expect(p.bin).toBe('kubectl-kwatch');
    }
  });

  it('starts the executable from an empty folder with no Node on PATH: --version, events, index', async () => {
    const empty = join(dir, 'empty');
    const pathDir = join(dir, 'path');
    mkdirSync(empty);
    mkdirSync(pathDir);
    const env = { PATH: pathDir, HOME: empty, KUBECONFIG: join(empty, 'no-kubeconfig'), NO_COLOR: '1' };
    expect(spawnSync('node', ['--version'], { env }).error, 'no node on the test PATH').toMatchObject({ code: 'ENOENT' });
    const exe = (args: string[]) => run(join(unpacked, 'kubectl-kwatch'), args, { cwd: empty, env, timeout: 60_000 });

    expect((await exe(['--version'])).stdout).toMatch(new RegExp(`^kwatch/${version.replaceAll('.', '\\.')} linux-x64 node-v24\\.`));

    const events = await exe(['events', 'pods', '--sim', '--sim-churn', '50', '--max-events', '3', '-o', 'ndjson']);
    const records = events.stdout.trim().split('\n').map((line) => JSON.parse(line) as { stage: string });
    expect(records.filter((r) => r.stage === 'watch')).toHaveLength(3);
    expect(records.some((r) => r.stage === 'reflector')).toBe(true);

    const index = await exe(['index', '--by', 'nodeName', '--sim']);
    expect(index.stdout).toMatch(/^│ VALUE\s+│ COUNT\s+│ KEYS\s+│$/m);
    expect(index.stdout).toMatch(/^│ node-001\s+│\s+\d+ │ default\//m);

    // kubectl runs the archive's kubectl_complete-kwatch for `kubectl kwatch <TAB>`: it must answer with no
    // manifest file beside it (the executable carries its own).
    const completion = await run(join(unpacked, 'kubectl_complete-kwatch'), ['ev'], { cwd: empty, env, timeout: 60_000 });
    expect(completion.stdout).toMatch(/^events\t.*\n:4\n$/);
  }, 120_000);

  it('runs TypeScript controller modules (enums, parameter properties, a .js import of a .ts file, \'kwatch\') and .mjs ones, with no Node or esbuild on PATH', async () => {
    const work = join(dir, 'controllers');
    mkdirSync(work);
    writeFileSync(join(work, 'colors.ts'), [
      'export enum Color { Blue = \'blue\' }',
      'export class Counter { constructor(private readonly start: number) {} next(): number { return this.start + 1; } }',
      '',
    ].join('\n'));
    writeFileSync(join(work, 'painter.ts'), [
      "import { defineController } from 'kwatch';",
      "import { Color, Counter } from './colors.js';",
      'const counter: Counter = new Counter(41);',
      "export default defineController({ name: 'painter', for: 'pods', async reconcile(_req, ctx) { ctx.log(`paint ${Color.Blue} ${counter.next()}`); } });",
      '',
    ].join('\n'));
    writeFileSync(join(work, 'broken.ts'), ['const where: string = \'at load\';', "export default { for: 'pods', reconcile() {} };", 'throw new Error(`broken ${where}`);', ''].join('\n'));
    writeFileSync(join(work, 'plain.mjs'), "import { defineController } from 'kwatch';\nexport default defineController({ name: 'plain', for: 'pods', async reconcile(_req, ctx) { ctx.log('plain ok'); } });\n");
    const env = { PATH: join(dir, 'path'), HOME: work, KUBECONFIG: join(work, 'no-kubeconfig'), NO_COLOR: '1' };
    mkdirSync(env.PATH, { recursive: true });
    const exe = (args: string[]) => run(join(unpacked, 'kubectl-kwatch'), args, { cwd: work, env, timeout: 60_000 });

    const ts = await exe(['reconcile', '--with', 'painter.ts', '--sim', '--once', '-o', 'ndjson']);
    expect(ts.stdout).toContain('"message":"paint blue 42"');
    expect(ts.stderr).not.toMatch(/warning|experimental/i);
    const mjs = await exe(['reconcile', '--with', 'plain.mjs', '--sim', '--once', '-o', 'ndjson']);
    expect(mjs.stdout).toContain('"message":"plain ok"');

    // A module that throws while loading: one line naming the TypeScript file and line, no stack trace.
    const broken = await exe(['reconcile', '--with', 'broken.ts', '--sim', '--once']).then(() => undefined, (err: { code: number; stderr: string }) => err);
    expect(broken?.code).not.toBe(0);
    expect(broken?.stderr.trim()).toMatch(/^error: \S*broken\.ts:3: broken at load \(thrown while loading /);
  }, 120_000);

  it.runIf(SCRIPT)('draws the --live dashboard in a terminal', async () => {
    const empty = join(dir, 'live');
    mkdirSync(empty);
    // script(1) gives the executable a terminal (stdin and stdout) and copies what it draws to stdout; what it reads on
    // stdin goes to the terminal: the q a user types ends the run once the dashboard is drawn (no fixed --for).
    const cmd = `${JSON.stringify(join(unpacked, 'kubectl-kwatch'))} events pods --sim --sim-churn 50 --live`;
    const child = spawn(SCRIPT!, ['-qec', cmd, '/dev/null'], { cwd: empty, env: { PATH: '/usr/bin:/bin', HOME: empty, TERM: 'xterm', NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'inherit'] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await expect.poll(() => stdout, { timeout: 60_000, interval: 50 }).toMatch(/resource pods[\s\S]*watching since \d\d:\d\d:\d\d|watching since \d\d:\d\d:\d\d[\s\S]*resource pods/);
    child.stdin.write('q');
    expect(await exited).toBe(0);
    expect(stdout).toContain('resource pods');
    expect(stdout).toMatch(/watching since \d\d:\d\d:\d\d/);
    expect(stdout).not.toMatch(/error:/);
  }, 120_000);

  it('carries every command oclif knows (its manifest), as `kubectl kwatch`', async () => {
    const manifestFile = join(ROOT, 'oclif.manifest.json');
    if (!existsSync(manifestFile)) throw new Error('oclif.manifest.json is missing: run npm run build first');
    const ids = Object.keys((JSON.parse(readFileSync(manifestFile, 'utf8')) as { commands: Record<string, unknown> }).commands);
    expect(ids.length).toBeGreaterThan(0);
    const { stdout } = await run(join(unpacked, 'kubectl-kwatch'), ['--help'], { env: { PATH: '/nonexistent', HOME: dir, NO_COLOR: '1' } });
    expect(stdout).toContain('$ kubectl kwatch [COMMAND]');
    for (const id of ids) expect(stdout, id).toMatch(new RegExp(`^  ${id.split(':')[0]}\\s`, 'm'));
  });
});
