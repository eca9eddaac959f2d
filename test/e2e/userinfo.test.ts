// A kubeconfig whose server URL carries a password (http://user:password@host): the built CLI never prints
// it or writes it into its own files, yet shares kubectl's discovery cache folder (named after the URL as
// written, password included, by kubectl itself).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { BIN, KUBECTL } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const PASSWORD = 's3cret-pw';
const dir = tempDir('kwatch-e2e-userinfo-');
let sim: SimServer;
let kubeconfig: string;
let port: string;

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
  });
}
const kwatch = (args: string[], env: Record<string, string>) => run(process.execPath, [BIN, ...args], env);

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 3, nodes: 1 });
  port = new URL(sim.url).port;
  kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {server: "http://alice:${PASSWORD}@127.0.0.1:${port}"}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\n`,
  );
});
afterAll(() => sim?.close());

describe('a password in the server URL (built CLI)', () => {
  it('kwatch discovery reads the cache kubectl wrote, and prints Server: and Cache: without the password', async () => {
    const env = { KUBECACHEDIR: join(dir, 'cache') };
    expect((await run(KUBECTL, ['get', 'pods'], env)).code).toBe(0);
    // kubectl's own folder name holds the password: sharing the cache means using that very folder.
    expect(readdirSync(join(dir, 'cache', 'discovery'))).toEqual([`alice_s3cret_pw_127.0.0.1_${port}`]);

    const res = await kwatch(['discovery'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`Server:\\s+http://alice:\\*\\*\\*@127\\.0\\.0\\.1:${port}\\n`));
    expect(res.stdout).toContain(`${join(dir, 'cache', 'discovery', `alice_***_127.0.0.1_${port}`)} (TTL`);
    expect(res.stdout + res.stderr).not.toContain(PASSWORD);
    expect(res.stdout + res.stderr).not.toContain('s3cret_pw');
    const json = JSON.parse((await kwatch(['discovery', '-o', 'json'], env)).stdout) as { mode: string; requests: unknown[] };
    expect(json.mode).toBe('cache');
    expect(json.requests).toEqual([]);
  });

  it('recordings and checkpoints hold the server URL with the password masked', async () => {
    const env = { KUBECACHEDIR: join(dir, 'cache2') };
    const rec = join(dir, 'rec.ndjson');
    const events = await kwatch(['events', 'pods', '--until-synced', '-o', 'ndjson', '--record', rec], env);
    expect(events.code).toBe(0);
    const header = JSON.parse(readFileSync(rec, 'utf8').split('\n')[0]) as { server: string };
    expect(header.server).toBe(`http://alice:***@127.0.0.1:${port}`);
    expect(readFileSync(rec, 'utf8')).not.toContain(PASSWORD);

    const cp = join(dir, 'ck.json');
    // From resourceVersion 1 the seeded objects arrive as events: the first one writes the checkpoint.
    const replay = await kwatch(['replay', 'pods', '--from-rv', '1', '--max-events', '1', '-o', 'ndjson', '--checkpoint', cp], env);
    expect(replay.code).toBe(0);
    expect(readFileSync(cp, 'utf8')).toContain(`"server": "http://alice:***@127.0.0.1:${port}"`);
    // ... and resuming from it matches the same (masked) server.
    const again = await kwatch(['replay', '--from-checkpoint', cp, '--for', '300ms', '-o', 'ndjson'], env);
    expect(again.stderr).not.toContain('was written against');
    expect(again.code).toBe(0);
  });
});
