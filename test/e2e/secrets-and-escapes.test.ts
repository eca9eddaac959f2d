// End to end through the built CLI (run `npm run build` first): Secrets with neutral key names never
// reach any output or recording unmasked, and control characters in server text never reach the
// terminal raw — through index, events (table, --diff, ndjson, --raw, --record), list and replay.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { LAST_APPLIED, leaksIn, newSecret, oldSecret } from '../render/secret-fixtures.js';
import { kwatch, Running } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const NS = 'vault';
/** Sets the window title, rings the bell, erases the line and overwrites it. */
const EVIL = '\x1b]0;pwned\x07\x1b[2K\rall good';
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const ESCAPED = '\\x1b]0;pwned\\x07\\x1b[2K\\rall good';

const dir = tempDir('kwatch-e2e-secrets-');
let sim: SimServer;
let env: Record<string, string>;

/** The stored form of a fixture Secret: what a server keeps (stringData folded into data by the sim). */
function stored(s: ReturnType<typeof newSecret>) {
  const { resourceVersion: _rv, ...metadata } = s.metadata;
  return { ...s, metadata: { ...metadata, namespace: NS } };
}

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
  sim.api.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: NS } });
  sim.api.create(SECRETS, stored(newSecret()));
  sim.api.create(CONFIGMAPS, { metadata: { name: 'motd', namespace: NS, annotations: { note: EVIL } }, data: { 'motd.txt': EVIL } });
});
afterAll(() => sim?.close());

/** Polls a running kwatch's stdout lines for a match, with a bound. */
async function untilLine(run: Running, pred: (line: string) => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!run.lines.some(pred)) {
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`timed out waiting for ${what}; stderr: ${run.stderr}\nlines: ${run.lines.slice(-10).join('\n')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Changes the Secret's values (a new db-url, stringData written again) and returns once stored. */
function rotateSecret(dbUrl: string) {
  const cur = sim.api.get(SECRETS, NS, 'app')!;
  return sim.api.update(SECRETS, { ...cur, data: { ...(cur.data as Record<string, string>), 'db-url': Buffer.from(dbUrl).toString('base64') } });
}

describe('kwatch index over Secrets with neutral key names (built CLI)', () => {
  const BY = ['--by', '{.data}', '--by', `annotation:${LAST_APPLIED}`, '--by', '{.data.*}', '--by', 'jsonpath={..db-url}'];

  it('the table and -o json|yaml show <masked N bytes> values, never the data or the last-applied stringData', async () => {
    const runs = await Promise.all(['table', 'json', 'yaml'].map((output) => kwatch(['index', 'secrets', '-n', NS, ...BY, '-o', output], env)));
    for (const res of runs) {
      expect(res.code, res.stderr).toBe(0);
      expect(leaksIn(res.stdout)).toEqual([]);
      expect(res.stdout).toContain('<masked');
    }
  });

  it('--show-secrets shows them', async () => {
    const res = await kwatch(['index', 'secrets', '-n', NS, ...BY, '-o', 'json', '--show-secrets'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(leaksIn(res.stdout).length).toBeGreaterThan(0);
  });

  it('--watch -o ndjson masks the old and new values of an index change', async () => {
    const run = new Running(['index', 'secrets', '-n', NS, '--by', '{.data.*}', '--watch', '-o', 'ndjson', '--for', '20s'], env);
    try {
      await run.waitFor((r) => r.op === 'add', 'the initial add');
      rotateSecret('postgres://app:ocelot-lantern@db:5432/app');
      const update = await run.waitFor((r) => r.op === 'update', 'the index change of the rotated Secret');
      const change = (update.indices as Record<string, { old: string[]; new: string[] }>)['{.data.*}'];
      expect(change.old.concat(change.new).every((v) => /^<masked \d+ bytes>$/.test(v))).toBe(true);
    } finally {
      await run.stop();
    }
    expect(leaksIn(run.lines.join('\n'))).toEqual([]);
  });

  it('--watch (plain blocks) masks the VALUE column', async () => {
    const res = await kwatch(['index', 'secrets', '-n', NS, '--by', '{.data.*}', '--watch', '--for', '1s', '--interval', '300ms'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('<masked');
    expect(leaksIn(res.stdout)).toEqual([]);
  });
});

describe('escape sequences from the server (built CLI)', () => {
  it('kwatch index shows an annotation holding ESC/BEL/CR escaped in the VALUE column; -o json keeps it exact', async () => {
    const [table, json] = await Promise.all([
      kwatch(['index', 'configmaps', '-n', NS, '--by', 'annotation:note', '--by', '{.data.motd\\.txt}'], env),
      kwatch(['index', 'configmaps', '-n', NS, '--by', 'annotation:note', '-o', 'json'], env),
    ]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toMatch(RAW_CONTROL);
    expect(table.stdout).toContain(ESCAPED);
    expect(Object.keys((JSON.parse(json.stdout) as Record<string, Record<string, string[]>>)['annotation:note'])).toContain(EVIL);
  });

  it('kwatch events --diff prints the changed annotation escaped', async () => {
    const run = new Running(['events', 'configmaps', '-n', NS, '--diff'], env);
    try {
      await untilLine(run, (l) => l.includes('OnAdd'), 'the initial add');
      const cur = sim.api.get(CONFIGMAPS, NS, 'motd')!;
      sim.api.update(CONFIGMAPS, { ...cur, metadata: { ...(cur.metadata as object), annotations: { note: `${EVIL} again` } } });
      await untilLine(run, (l) => l.includes('metadata.annotations.note:'), 'the diff line');
    } finally {
      await run.stop();
    }
    const out = run.lines.join('\n');
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain(`metadata.annotations.note: ${ESCAPED} → ${ESCAPED} again`);
  });
});

describe('kwatch events, list and replay over Secrets with neutral key names (built CLI)', () => {
  it('events --diff -o ndjson and its --record file mask every changed value', async () => {
    const file = join(dir, 'secrets.ndjson');
    const run = new Running(['events', 'secrets', '-n', NS, '--diff', '-o', 'ndjson', '--record', file], env);
    try {
      await run.waitFor((r) => r.stage === 'reflector' && r.op === 'synced', 'the initial sync');
      rotateSecret('postgres://app:walrus-saffron@db:5432/app');
      const upd = await run.waitFor((r) => r.stage === 'handler' && r.op === 'OnUpdate', 'the update');
      expect(upd.diff).toEqual([{ path: 'data.db-url', old: expect.stringMatching(/^<masked \d+ bytes #[0-9a-f]{8}>$/), new: expect.stringMatching(/^<masked \d+ bytes #[0-9a-f]{8}>$/) }]);
    } finally {
      await run.stop();
    }
    expect(leaksIn(run.lines.join('\n'))).toEqual([]);
    const recording = readFileSync(file, 'utf8');
    expect(recording).toContain('<masked');
    expect(leaksIn(recording)).toEqual([]);
  });

  it('events --raw -o json and list -o json|yaml mask them', async () => {
    const [raw, ...lists] = await Promise.all([
      kwatch(['events', 'secrets', '-n', NS, '--raw', '-o', 'json', '--max-events', '1'], env),
      ...['json', 'yaml'].map((output) => kwatch(['list', 'secrets', '-n', NS, '-o', output], env)),
    ]);
    expect(raw.code, raw.stderr).toBe(0);
    for (const list of lists) {
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/masked \d+ bytes/);
      expect(leaksIn(list.stdout)).toEqual([]);
    }
    expect(leaksIn(raw.stdout)).toEqual([]);
  });

  it('replay of a recording another tool wrote (list items without kind, stringData) masks the diff in every format', async () => {
    const file = join(dir, 'other-tool.ndjson');
    const { kind: _none, ...listed } = oldSecret();
    const lines = [
      { kind: 'KwatchRecording', formatVersion: 1, kwatchVersion: '0.0.0', server: 'https://elsewhere.test', resources: [{ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true }], startTime: '2026-01-01T00:00:00.000Z', masked: false },
      { rec: 'list', t: 0, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { metadata: { resourceVersion: '10' }, items: [{ ...listed, stringData: { 'settings.ini': 'colour=tangerine-pelican' } }] } },
      { rec: 'watch-start', t: 1, res: 0, conn: 2, options: { resourceVersion: '10', allowWatchBookmarks: true } },
      { rec: 'event', t: 2, res: 0, conn: 2, event: { type: 'MODIFIED', object: newSecret() } },
      { rec: 'watch-end', t: 3, res: 0, conn: 2, reason: 'eof' },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const runs = await Promise.all(['table', 'ndjson', 'yaml'].map((output) => kwatch(['replay', file, '--diff-all', '-o', output, '--stages', 'watch,handler'], env)));
    for (const res of runs) {
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('stringData');
      expect(res.stdout).toContain('<masked');
      expect(leaksIn(res.stdout)).toEqual([]);
    }
  });
});
