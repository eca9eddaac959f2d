// What the common commands load: the template engines, the live session and the recording code only when the
// run uses them, and cli-table3 only when a table is drawn (each costs milliseconds of start-up on every run).
// The npm CLI runs its commands from one bundle (dist/kwatch.cjs), where a module left unloaded is one left
// unevaluated; these checks run the same code unbundled (dist/cli/main.js), where each module is a file.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, run } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-imports-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Preloaded into the child: appends every module it loads (ES modules as resolved, CommonJS as required) to $LOG, and
 * every bundle (.cjs) src/cli/load-bundle.ts reads itself, as `read PATH`.
 */
const LOG_LOADS = `
import { register, createRequire, syncBuiltinESMExports } from 'node:module';
import fs, { appendFileSync } from 'node:fs';
const log = process.env.KWATCH_MODULE_LOG;
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try { appendFileSync(log, Module._resolveFilename(request, parent, isMain) + '\\n'); } catch {}
  return load.apply(this, arguments);
};
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path) {
  if (typeof path === 'string' && path.endsWith('.cjs')) appendFileSync(log, 'read ' + path + '\\n');
  return readFileSync.apply(this, arguments);
};
syncBuiltinESMExports();
register('data:text/javascript,' + encodeURIComponent(
  "import { appendFileSync } from 'node:fs';" +
  'export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(' + JSON.stringify(log) + ", r.url + '\\\\n'); return r; }",
));`;

const preload = join(dir, 'log-loads.mjs');
writeFileSync(preload, LOG_LOADS);
/** The CLI without its bundle: runCli with no `oclif` loader runs dist/cli/oclif-run.js and dist/commands. */
const unbundled = join(dir, 'unbundled.mjs');
writeFileSync(unbundled, `import { runCli } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js')).href)};\nawait runCli({ bin: 'kwatch' });\n`);

let runs = 0;
/** The modules of one run, by what the run is: tests that ask about the same run (same entry, args and NODE_ENV) share it. */
const loads = new Map<string, Promise<string>>();
function loadedBy(args: string[], entry = unbundled, env: Record<string, string> = {}): Promise<string> {
  const key = JSON.stringify([entry, args, env.NODE_ENV ?? process.env.NODE_ENV, { ...env, NODE_ENV: undefined }]);
  let loaded = loads.get(key);
  if (loaded === undefined) {
    loaded = (async () => {
      const log = join(dir, `loads-${++runs}.txt`);
      const r = await run(process.execPath, ['--import', preload, entry, ...args], { ...env, KWATCH_MODULE_LOG: log });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(log, 'utf8');
    })();
    loads.set(key, loaded);
  }
  return loaded;
}

describe('start-up imports', () => {
  it('the npm CLI runs a command from its bundle: no module of dist/commands, oclif or undici is resolved on its own', { timeout: 60_000 }, async () => {
    const loaded = await loadedBy(['events', 'pods', '--sim', '--until-synced', '-o', 'ndjson'], BIN);
    // load-bundle.ts (inside dist/cli/bin-start.cjs) compiles dist/kwatch.cjs itself (no require() to log): the log shows it read it.
    expect(loaded).toMatch(/^read .*\/dist\/kwatch\.cjs$/m);
    for (const m of ['/dist/commands/', '/node_modules/@oclif/', '/node_modules/undici/', '/node_modules/yaml/']) expect(loaded).not.toContain(m);
  });

  // Node's ES module loader cost 5-11 ms of every run (docs/benchmarks.md, Round 6): bin/ and the start-up path it
  // requires (dist/cli/compile-cache.cjs, dist/cli/bin-start.cjs: scripts/bundle/bin-entry-bundle.js) are CommonJS, as
  // is the bundle.
  it('the npm CLI runs a command without resolving any ES module', { timeout: 60_000 }, async () => {
    const loaded = await loadedBy(['list', 'pods', '--sim', '-o', 'name'], BIN);
    expect(loaded).toMatch(/\/dist\/cli\/bin-start\.cjs$/m);
    // The entry itself is resolved as a URL only because --import (the log's preload) hands the main script to the ES loader.
    expect(loaded.split('\n').filter((l) => l.startsWith('file:') && l !== pathToFileURL(BIN).href)).toEqual([]);
  });

  // oclif turns on its TypeScript path lookup under NODE_ENV=development or test (a JS developer's shell; every
  // process vitest starts inherits NODE_ENV=test): it then parsed tsconfig.json with the TypeScript compiler found
  // beside the package, and the run cost about twice its CPU.
  it.each(['development', 'test'])('under NODE_ENV=%s the bundle\'s run loads no TypeScript compiler, tsx or ts-node', { timeout: 60_000 }, async (nodeEnv) => {
    const loaded = await loadedBy(['events', 'pods', '--sim', '--until-synced', '-o', 'ndjson'], BIN, { NODE_ENV: nodeEnv });
    expect(loaded).toMatch(/^read .*\/dist\/kwatch\.cjs$/m);
    for (const m of ['/node_modules/typescript/', '/node_modules/tsx/', '/node_modules/ts-node/']) expect(loaded).not.toContain(m);
  });

  // The sim is a file of its own (scripts/bundle/cli-bundle.js): a run that starts none must not read, hash and
  // compile it. The flags every command takes name the sim's releases (--kube-version), which are bundled twice.
  it('a command that starts no sim does not read the sim\'s bundle (nor node:http on a flag error); --sim does', { timeout: 60_000 }, async () => {
    const kubeconfig = join(dir, 'no-cluster.kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    for (const args of [['list', 'pods', '--max-object-size', 'lots'], ['events', 'pods', '--kube-version', '1.34'], ['list', 'pods', '--kubeconfig', kubeconfig]]) {
      const log = join(dir, `loads-${++runs}.txt`);
      const r = await run(process.execPath, ['--import', preload, BIN, ...args], { KWATCH_MODULE_LOG: log });
      expect(r.code, r.stderr).not.toBe(0);
      const loaded = readFileSync(log, 'utf8');
      expect(loaded).toMatch(/^read .*\/dist\/kwatch\.cjs$/m);
      expect(loaded, args.join(' ')).not.toContain('kwatch-sim.cjs');
      // node:http (net, streams) for nothing: the request log's reason phrases are read only when -v asks for it.
      if (args.includes('lots')) expect(loaded).not.toMatch(/^(node:)?http$/m);
    }
    expect(await loadedBy(['list', 'pods', '--sim', '--kube-version', '1.34', '-o', 'name'], BIN)).toMatch(/^read .*\/dist\/kwatch-sim\.cjs$/m);
  });

  // oclif took an argument left out from a stdin that is not a terminal, if a line came within 10 ms: with a pipe
  // holding a line, `events pods` watched one pod of that name (or every pod, by timing). src/cli/args-without-stdin.ts.
  it('an argument left out is never read from stdin', { timeout: 60_000 }, async () => {
    const r = await run(process.execPath, [BIN, 'events', 'pods', '--sim', '--sim-churn', '0', '--until-synced', '-o', 'ndjson'], {}, 'no-such-pod\n');
    expect(r.code, r.stderr).toBe(0);
    const added = r.stdout.split('\n').filter((l) => l.includes('"op":"ADDED"')).map((l) => (JSON.parse(l) as { key: string }).key);
    // The sim's `default` pods (five for the default seed), none of them the name sent on stdin.
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((key) => key.startsWith('default/'))).toBe(true);
  });

  it('--version and a command\'s help are answered without loading the bundle', { timeout: 60_000 }, async () => {
    for (const args of [['--version'], ['events', '--help']]) expect(await loadedBy(args, BIN)).not.toMatch(/^read .*\/dist\/kwatch\.cjs$/m);
  });

  it('events -o ndjson loads neither the template engines, nor the live session, nor the recording code', { timeout: 60_000 }, async () => {
    const loaded = await loadedBy(['events', 'pods', '--sim', '--until-synced', '-o', 'ndjson']);
    expect(loaded).toContain('/dist/cli/events-view.js');
    for (const m of ['/render/object-template.js', '/cli/live-session.js', '/cli/recording-open.js', '/kube/recording/recording-file.js']) expect(loaded).not.toContain(m);
  });

  it('events loads the parts of undici it uses, not its index (fetch, cookies, WebSocket, mocks, zlib)', { timeout: 60_000 }, async () => {
    const loaded = await loadedBy(['events', 'pods', '--sim', '--until-synced', '-o', 'ndjson']);
    expect(loaded).toContain('/undici/lib/dispatcher/agent.js');
    for (const m of ['/undici/index.js', '/undici/lib/web/fetch/', '/undici/lib/web/cookies/', '/undici/lib/mock/', '/undici/lib/interceptor/decompress.js']) expect(loaded).not.toContain(m);
  });

  it('list -o json draws no table: no cli-table3, no template engines', { timeout: 60_000 }, async () => {
    const loaded = await loadedBy(['list', 'pods', '--sim', '-o', 'json']);
    expect(loaded).toContain('/dist/commands/list.js');
    expect(loaded).not.toContain('/cli-table3/');
    expect(loaded).not.toContain('/render/object-template.js');
  });

  it('a template output still loads its engine', { timeout: 60_000 }, async () => {
    expect(await loadedBy(['list', 'pods', '--sim', '-o', 'jsonpath={.items[*].metadata.name}'])).toContain('/render/object-template.js');
  });
});
