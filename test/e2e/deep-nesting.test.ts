// Objects nested 10,000 levels deep (kube-apiserver accepts that many; the sim stops at 1,000, so a stub
// server sends them over real HTTP): every output of the built CLI that walks objects fails that one object
// with one line naming it, and goes on with the others — never a stack overflow, never an internal error.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { initialEventsEnd, isWatchList, startMisbehavingServer, type MisbehavingServer } from '../kube/misbehaving-server.js';
import { tempDir } from '../temp-dir.js';

const DEPTH = 10_000;
const deep = (leaf: string) => '{"x":'.repeat(DEPTH) + JSON.stringify(leaf) + '}'.repeat(DEPTH);
const deepPod = (rv: string, leaf: string) => `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"deep","namespace":"default","resourceVersion":"${rv}"},"spec":${deep(leaf)}}`;
const okPod = (rv: string) => JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'ok', namespace: 'default', resourceVersion: rv }, spec: { nodeName: 'n1' } });
/** The one line an object gets: its key, that it is too deep, and what happened to it. */
const TOO_DEEP_LINE = /^error: default\/deep \(resourceVersion \d\): nested more than 1000 levels deep \(kwatch follows objects to 1000 levels\); (left out|not indexed by .*)$/m;

let server: MisbehavingServer;
const dir = tempDir('kwatch-deep-');

beforeAll(async () => {
  server = await startMisbehavingServer((req, res: ServerResponse, watch) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (!watch) return res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"2"},"items":[${okPod('1')},${deepPod('2', 'a')}]}`);
    // A watch-list (the default sync) is answered as kube does: the list as ADDED events, then the end bookmark.
    if (isWatchList(req)) res.write(`{"type":"ADDED","object":${okPod('1')}}\n{"type":"ADDED","object":${deepPod('2', 'a')}}\n${JSON.stringify(initialEventsEnd('Pod', 'v1', '2'))}\n`);
    // The deep object changes, then the other one; the connection stays open.
    res.write(`{"type":"MODIFIED","object":${deepPod('3', 'b')}}\n{"type":"MODIFIED","object":${okPod('4')}}\n`);
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectNoCrash(res: { code: number | null; stderr: string }): void {
  expect(res.stderr).not.toMatch(/Maximum call stack|internal error|RangeError|\n\s+at /);
}

// Generous: several CLI runs per test, each of them a few seconds on a loaded machine.
describe.concurrent('an object nested 10,000 deep fails alone, in one line (built CLI)', { timeout: 120_000 }, () => {
  const lists: [string, string[], RegExp][] = [
    ['-o json', ['-o', 'json'], /"name": "ok"/],
    ['-o yaml --show-secrets', ['-o', 'yaml', '--show-secrets'], /name: ok/],
    ['-o go-template', ['-o', 'go-template={{range .items}}{{.metadata.name}} {{end}}'], /^ok $/m],
    ['-o custom-columns', ['-o', 'custom-columns=NAME:.metadata.name,SPEC:.spec'], /^ok\s+map\[nodeName:n1\]$/m],
    ['-o jsonpath with recursive descent', ['-o', 'jsonpath={..nodeName}'], /^n1$/],
  ];
  for (const [name, args, shown] of lists) {
    it(`list pods ${name}: the other object printed, one line for the deep one, exit 1`, async () => {
      const res = await kwatch(['list', 'pods', ...args], server.env);
      expectNoCrash(res);
      expect(res.stdout).toMatch(shown);
      expect(res.stdout).not.toContain('"deep"');
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(TOO_DEEP_LINE);
      expect(res.code).toBe(1);
    });
  }

  for (const by of ['{.spec}', '{..x}']) {
    it(`index pods --by ${by}: the deep object goes under no value, one line`, async () => {
      const res = await kwatch(['index', 'pods', '--by', by, '-o', 'json', '--show-secrets'], server.env);
      expectNoCrash(res);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(TOO_DEEP_LINE);
      expect(res.stderr).toContain(`not indexed by ${by}`);
      expect(res.stdout).toContain('default/ok');
    });
  }

  it('index --value: the deep object left out of the objects under a value', async () => {
    const res = await kwatch(['index', 'pods', '--by', 'namespace', '--value', 'default', '-o', 'json'], server.env);
    expectNoCrash(res);
    expect(res.stderr).toMatch(TOO_DEEP_LINE);
    expect(res.stdout).toContain('"name": "ok"');
  });

  it('events --diff (table and ndjson): the deep update is traced without its objects, saying why; the run goes on', async () => {
    // Both syncs: the default watch-list (the stand-in answers it as kube does) and --no-watch-list's LIST+WATCH. Each
    // run ends when the last event (ok's update) went through every stage: the watch-list's 4 events (the 2 initial
    // ADDED, then the 2 MODIFIED), the LIST+WATCH's 2 MODIFIED.
    for (const [output, sync, events] of [['table', [], '4'], ['ndjson', [], '4'], ['table', ['--no-watch-list'], '2'], ['ndjson', ['--no-watch-list'], '2']] as const) {
      const res = await kwatch(['events', 'pods', ...sync, '--diff', '-o', output, '--max-events', events], server.env);
      expectNoCrash(res);
      expect(res.code, res.stderr).toBe(0);
      const lines = res.stdout.split('\n');
      const handlerUpdate = (key: string) => new RegExp(`handler\\s+OnUpdate\\s+${key}\\s|"stage":"handler","op":"OnUpdate","key":"${key}"`);
      const update = lines.filter((l) => handlerUpdate('default/deep').test(l));
      expect(update.length).toBeGreaterThanOrEqual(1);
      for (const line of update) expect(line).toContain('nested more than 1000 levels deep');
      // The event after it still arrives, with its diff.
      expect(lines.some((l) => handlerUpdate('default/ok').test(l))).toBe(true);
    }
  });

  it('events --raw -o go-template and -o json --show-secrets: the deep event is one line, the next one printed', async () => {
    for (const args of [['-o', 'go-template={{.metadata.name}}'], ['-o', 'json', '--show-secrets']]) {
      // The watch's 2 events, the deep one counted too: the run ends after ok's.
      const res = await kwatch(['events', 'pods', '--raw', ...args, '--max-events', '2'], server.env);
      expectNoCrash(res);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(TOO_DEEP_LINE);
      expect(res.stdout).toContain('ok');
    }
  });

  it('events -o go-template (through the pipeline): the deep object is one line, the other printed', async () => {
    // The default sync, a watch-list: the deep object arrives as an initial ADDED event.
    const res = await kwatch(['events', 'pods', '-o', 'go-template={{.metadata.name}}{{"\\n"}}', '--max-events', '4'], server.env);
    expectNoCrash(res);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(TOO_DEEP_LINE);
    expect(res.stdout.split('\n')).toContain('ok');
  });

  it('events --record keeps every entry, the deep object cut at 1000 levels with a marker, and replays', async () => {
    const file = join(dir, 'deep.ndjson');
    // --no-watch-list: what is checked here is the recorded LIST's cut (a watch-list's objects are recorded as events).
    const res = await kwatch(['events', 'pods', '--no-watch-list', '--record', file, '--max-events', '2', '-o', 'ndjson'], server.env);
    expectNoCrash(res);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^Warning: a recorded list is nested more than 1000 levels deep/m);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.includes('"rec":"event"'))).toHaveLength(2);
    expect(lines.join('\n')).toContain('<nested deeper than 1000 levels: not recorded>');
    const replay = await kwatch(['replay', file, '--diff', '-o', 'ndjson'], server.env);
    expectNoCrash(replay);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('"key":"default/deep"');
  });
});
