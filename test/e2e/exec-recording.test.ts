// kwatch reconcile --exec --from-recording: a recording served to a controller process (kubectl, from a shell) as its
// cluster — seeded with the recording's lists before the process starts, its events following at the recording's pace.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';
import { BIN, KUBECTL, run, type Rec } from './events-helpers.js';

// A run plays a recording at its pace and waits for --once to settle: on a loaded machine, past the usual bound.
const kwatch = (args: string[], env: Record<string, string>) => run(process.execPath, [BIN, ...args], env, undefined, 120_000);

let dir = '';
let recording = '';
const cm = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2026-11-01T10:00:00Z' }, data: { owner: name } });

beforeAll(() => {
  dir = tempDir('kwatch-e2e-exec-recording-');
  recording = join(dir, 'shop.ndjson');
  const lines = [
    { kind: 'KwatchRecording', formatVersion: 1, kwatchVersion: '0.1.0', server: 'https://prod.example:6443', resources: [{ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }], masked: true, startTime: '2026-11-01T10:00:00.000Z' },
    { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '100' }, items: [cm('one', '90')] } },
    { rec: 'watch-start', t: 20, res: 0, conn: 2, options: { resourceVersion: '100', allowWatchBookmarks: true } },
    // 20 s and 24 s into the recording: 5 s and 6 s after the start at --speed 4.
    { rec: 'event', t: 20_000, res: 0, conn: 2, event: { type: 'ADDED', object: cm('two', '101') } },
    { rec: 'event', t: 24_000, res: 0, conn: 2, event: { type: 'DELETED', object: cm('one', '102') } },
  ];
  writeFileSync(recording, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});

const sh = (script: string) => ['--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)];
const records = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);

// Each test has its own recording file and its own --sim or recording as the cluster; they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('kwatch reconcile --exec --from-recording', { timeout: 300_000 }, () => {
  it.sequential('the process starts on the recording\'s first state, sees its events at the recording\'s pace, and writes into a fork of it', async () => {
    const r = await kwatch(['reconcile', '--exec', '--from-recording', recording, '--speed', '4', '--writes', 'overlay', '--once', '--quiet', '1s', '-o', 'ndjson', ...sh(
      'kubectl get configmaps -n shop -o name && kubectl wait --for=delete configmap/one -n shop --timeout=60s && kubectl get configmaps -n shop -o name && kubectl create configmap three -n shop --from-literal=a=b && kubectl get configmap three -n shop -o name',
    )], { KUBECONFIG: join(dir, 'no-such-kubeconfig') });
    expect(r.stderr).toContain(`kwatch: serving ${recording} (configmaps) as the cluster, at 4x the recorded pace`);
    const said = r.stderr.split('\n').filter((l) => l.startsWith('sh | ')).map((l) => l.slice(5));
    // First the seeded list; after the recorded DELETE (which kubectl wait saw through its watch), the added one.
    expect(said).toEqual(['configmap/one', 'configmap/one condition met', 'configmap/two', 'configmap/three created', 'configmap/three']);
    const writes = records(r.stdout).filter((x) => x.op === 'write');
    expect(writes).toEqual([expect.objectContaining({ key: 'shop/three', verb: 'create', mode: 'overlay', code: 201 })]);
    expect(r.code).toBe(0);
  });

  it('--record: what the process was sent and what it wrote, Secret data masked; replay and --from-recording read it back', async () => {
    const file = join(dir, 'recorded.ndjson');
    const r = await kwatch(['reconcile', '--exec', '--sim', '-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', '--record', file, ...sh(
      'kubectl get configmaps -o name >/dev/null && kubectl create secret generic rec-secret --from-literal=password=hunter2 >/dev/null && kubectl get secrets -o name >/dev/null',
    )], {});
    expect(r.stderr).toMatch(new RegExp(`^recorded \\d+ lines to ${file.replaceAll('.', '\\.')}$`, 'm'));
    expect(r.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines[0]).toMatchObject({ kind: 'KwatchRecording', formatVersion: 2, masked: true, resources: [] });
    expect(lines.filter((l) => l.rec === 'resource').map((l) => `${l.resource.resource} ${l.resource.kind} ${l.resource.namespace}`)).toEqual([
      'configmaps ConfigMap default',
      // Written before it was read: the write is filed under the whole collection.
      'secrets Secret undefined',
      'secrets Secret default',
    ]);
    const write = lines.find((l) => l.rec === 'write');
    expect(write).toMatchObject({ verb: 'create', key: 'default/rec-secret', code: 201, client: expect.stringMatching(/^kubectl\[\d+\]$/), mode: 'overlay' });
    expect(JSON.stringify(lines)).not.toContain(Buffer.from('hunter2').toString('base64'));
    expect(lines.some((l) => l.rec === 'list' && l.page.kind === 'SecretList' && l.page.items.some((i: any) => i.metadata.name === 'rec-secret'))).toBe(true);
    // The recording is an ordinary one to the readers.
    const [replayed, served] = await Promise.all([
      kwatch(['replay', file, '-o', 'ndjson', '--stages', 'indexer'], {}),
      kwatch(['reconcile', '--exec', '--from-recording', file, '--speed', 'max', '--once', '--quiet', '1s', ...sh('kubectl get secret rec-secret -n default -o name')], { KUBECONFIG: join(dir, 'no-such-kubeconfig') }),
    ]);
    expect(replayed.code).toBe(0);
    expect(records(replayed.stdout).some((x) => x.key === 'default/rec-secret')).toBe(true);
    expect(served.stderr).toMatch(/^sh \| secret\/rec-secret$/m);
    // A reader that never watched and wrote nothing before it exited gave --once nothing to judge: idle (exit 4).
    expect(served.code).toBe(4);
  });

  it('--record records single-object GETs (a 404 too), so that --from-recording serves what the process read', async () => {
    const file = join(dir, 'gets.ndjson');
    const r = await kwatch(['reconcile', '--exec', '--sim', '-n', 'default', '--once', '--quiet', '1s', '--record', file, ...sh(
      'kubectl get configmap kube-root-ca.crt -o name && (kubectl get configmap rec-missing -o name 2>/dev/null; true)',
    )], {});
    expect(r.stderr).toMatch(/^sh \| configmap\/kube-root-ca\.crt$/m);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const pages = lines.filter((l) => l.rec === 'list');
    expect(pages.map((l) => [l.options.fieldSelector, l.page.items.map((i: any) => i.metadata.name)])).toEqual([
      ['metadata.name=kube-root-ca.crt', ['kube-root-ca.crt']],
      ['metadata.name=rec-missing', []],
    ]);
    const served = await kwatch(['reconcile', '--exec', '--from-recording', file, '--speed', 'max', '--once', '--quiet', '1s', ...sh('kubectl get configmap kube-root-ca.crt -n default -o name')], { KUBECONFIG: join(dir, 'no-such-kubeconfig') });
    expect(served.stderr).toMatch(/^sh \| configmap\/kube-root-ca\.crt$/m);
    expect(served.code).toBe(4); // idle, as above
  });

  it('bad input: --speed without a recording, and --from-recording with --sim, are one line and exit 1', async () => {
    const [a, b, c] = await Promise.all([
      kwatch(['reconcile', '--exec', '--speed', '2', '--sim', '--', 'true'], {}),
      kwatch(['reconcile', '--exec', '--from-recording', recording, '--sim', '--', 'true'], {}),
      kwatch(['reconcile', '--exec', '--from-recording', join(dir, 'missing.ndjson'), '--', 'true'], {}),
    ]);
    expect(a.stderr.trim()).toBe('error: --speed paces a recording: add --from-recording FILE');
    expect(a.code).toBe(1);
    expect(b.stderr).toMatch(/--from-recording is the controller's cluster: leave out --sim/);
    expect(b.code).toBe(1);
    expect(c.stderr).toMatch(/missing\.ndjson: no such file/);
    expect(c.code).toBe(1);
  });
});
