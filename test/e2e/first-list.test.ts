// End to end through the built CLI (run `npm run build` first): the first LIST of a cluster big enough that its
// one resourceVersion=0 body (~14 MB) is parsed as it arrives — index, events and list agree with each other and
// with the paged list, and -o name shows no Secret content while -o json masks it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { BIN, childEnv, type Result } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const PODS = 2000;
const dir = tempDir('kwatch-e2e-first-list-');
let sim: SimServer;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimServer({ port: 0, seed: 3, nodes: 7, pods: PODS, churn: 0 });
  sim.api.create({ group: '', version: 'v1', resource: 'secrets' }, { metadata: { name: 'db', namespace: 'default' }, data: { password: Buffer.from('tangerine-pelican').toString('base64') }, type: 'Opaque' });
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
}, 60_000);
afterAll(() => sim?.close());

/** The built CLI with room for its output (a list -o json of 2000 pods is ~40 MB). */
function kwatch(args: string[], env: Record<string, string>): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: childEnv(env), timeout: 90_000, maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0 }),
    );
  });
}

interface Pod {
  metadata: { namespace: string; name: string; managedFields?: unknown };
  spec: { nodeName?: string };
}

describe('a first LIST streamed (built CLI)', () => {
  it('index, events --until-synced and list -o name see the pods the paged list -o json returns', async () => {
    const [json, names, index, events] = await Promise.all([
      kwatch(['list', 'pods', '-A', '-o', 'json'], env),
      kwatch(['list', 'pods', '-A', '-o', 'name'], env),
      kwatch(['index', 'pods', '--by', 'nodeName', '-A', '-o', 'json'], env),
      kwatch(['events', 'pods', '-A', '--until-synced', '-o', 'ndjson'], env),
    ]);
    for (const r of [json, names, index, events]) expect(r.code, r.stderr).toBe(0);
    const pods = (JSON.parse(json.stdout) as { items: Pod[] }).items;
    expect(pods).toHaveLength(PODS);
    expect(pods.map((p) => p.metadata.name).sort()).toEqual((sim.api.list({ group: '', version: 'v1', resource: 'pods' }) as unknown as Pod[]).map((p) => p.metadata.name).sort());
    // json prints the objects as sent, managedFields included; name never needed them.
    expect(pods.every((p) => Array.isArray(p.metadata.managedFields))).toBe(true);
    expect(names.stdout.trim().split('\n').sort()).toEqual(pods.map((p) => `pod/${p.metadata.name}`).sort());

    const byNode: Record<string, string[]> = {};
    for (const p of pods) (byNode[p.spec.nodeName || '<none>'] ??= []).push(`${p.metadata.namespace}/${p.metadata.name}`);
    const indices = JSON.parse(index.stdout) as { nodeName: Record<string, string[]> };
    expect(Object.fromEntries(Object.entries(indices.nodeName).map(([k, v]) => [k, [...v].sort()]))).toEqual(Object.fromEntries(Object.entries(byNode).map(([k, v]) => [k, v.sort()])));

    const synced = events.stdout.trim().split('\n').map((l) => JSON.parse(l) as { stage: string; op: string; key?: string });
    const added = new Set(synced.filter((r) => r.stage === 'fifo' && r.op === 'Replaced').map((r) => r.key));
    expect([...added].sort()).toEqual(pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort());
  }, 120_000);

  it('list -o name prints the Secret\'s name; -o json masks its data', async () => {
    const [names, json] = await Promise.all([kwatch(['list', 'secrets', '-n', 'default', '-o', 'name'], env), kwatch(['list', 'secrets', '-n', 'default', '-o', 'json'], env)]);
    expect(names.code, names.stderr).toBe(0);
    expect(names.stdout).toBe('secret/db\n');
    expect(json.stdout).toMatch(/masked 17 bytes/);
    expect(json.stdout).not.toContain(Buffer.from('tangerine-pelican').toString('base64'));
  }, 60_000);
});
