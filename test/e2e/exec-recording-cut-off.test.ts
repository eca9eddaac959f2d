// reconcile --exec --from-recording --once as a CI gate: a recording cut off (its recorder killed mid-line) or with
// lines left out is not the cluster it claims to be, so the run cannot pass on it however the controller behaves.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';
import { BIN, KUBECTL, run } from './events-helpers.js';

const kwatch = (args: string[]) => run(process.execPath, [BIN, ...args], {}, undefined, 120_000);
const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';
const cm = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2026-11-01T10:00:00Z' }, data: { owner: name } });
const LINES = [
  { kind: 'KwatchRecording', formatVersion: 1, kwatchVersion: '0.1.0', server: 'https://prod.example:6443', resources: [{ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }], masked: true, startTime: '2026-11-01T10:00:00.000Z' },
  { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '100' }, items: [cm('one', '90')] } },
  { rec: 'watch-start', t: 20, res: 0, conn: 2, options: { resourceVersion: '100', allowWatchBookmarks: true } },
].map((l) => JSON.stringify(l));
const CUT = JSON.stringify({ rec: 'event', t: 30, res: 0, conn: 2, event: { type: 'ADDED', object: cm('two', '101') } }).slice(0, 60);
/** Reads the ConfigMaps, watches them (so the run can settle), and creates one: a controller that converges. */
const controller = ['--', 'sh', '-c', `${KUBECTL} -n shop create configmap made && ${KUBECTL} -n shop get configmaps -w --request-timeout=30s`];

describe('--from-recording --once on a damaged recording', { timeout: 300_000 }, () => {
  it('a whole recording converges (exit 0); the same cut off mid-line fails the run (exit 2), named on the last line', async () => {
    const dir = tempDir('kwatch-e2e-recording-cut-');
    const whole = join(dir, 'whole.ndjson');
    const cut = join(dir, 'cut.ndjson');
    writeFileSync(whole, `${LINES.join('\n')}\n`);
    writeFileSync(cut, `${LINES.join('\n')}\n${CUT}`);
    const args = (file: string) => ['reconcile', '--exec', '--from-recording', file, '--speed', 'max', '--writes', 'overlay', '--once', '--quiet', '2s', '--max-wait', '60s', ...controller];
    const [ok, damaged] = await Promise.all([kwatch(args(whole)), kwatch(args(cut))]);
    expect(lastLine(ok.stderr), ok.stderr).toBe('converged: 1 key written, no write pending');
    expect(ok.code).toBe(0);
    expect(damaged.stderr).toMatch(/^Warning: .*cut\.ndjson: the last line \(line 4, 60 bytes\) is incomplete/m);
    expect(lastLine(damaged.stderr), damaged.stderr).toBe(`failed: ${cut} is incomplete (its last line was cut off): a verdict on it is not one on the cluster it recorded`);
    expect(damaged.code).toBe(2);
  });
});
