// `kwatch sim` as a user runs it (built CLI): --tls --users, the kubeconfig written 0600 without following a symlink,
// the control token beside it, and one-line errors for what cannot work.
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, kubectl, kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-sim-');

/** Starts `kwatch sim ARGS`, resolves with its stdout once it has written the kubeconfig, and a stop function. */
async function startSim(args: string[]): Promise<{ stdout: () => string; stderr: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', '--pods', '0', '--nodes', '1', '--churn', '0', ...args], { env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 15_000;
  while (!out.includes('control endpoint token')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`kwatch sim did not start: ${out}${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { stdout: () => out, stderr: () => err, stop: () => { child.kill('SIGTERM'); return exited; } };
}

function control(url: string, ca: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/_kwatch/state`, { ca, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', reject);
    req.end();
  });
}

describe('kwatch sim (built CLI)', () => {
  it('serves --tls --users; writes the kubeconfig 0600 in place of a symlink, and the control token beside it', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'not a kubeconfig\n', { mode: 0o644 });
    const kubeconfig = join(dir, 'kubeconfig');
    symlinkSync(victim, kubeconfig);
    const sim = await startSim(['--tls', '--users', '--kubeconfig-out', kubeconfig, '--force']);
    try {
      expect(readFileSync(victim, 'utf8')).toBe('not a kubeconfig\n');
      expect(lstatSync(kubeconfig).isFile()).toBe(true);
      expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
      const tokenFile = `${kubeconfig}.control-token`;
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(sim.stdout()).toContain(`control endpoint token (for `);
      const url = /serving the Kubernetes API at (https:\/\/\S+)/.exec(sim.stdout())![1];
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))![1], 'base64').toString();
      expect(await control(url, ca)).toBe(401);
      expect(await control(url, ca, readFileSync(tokenFile, 'utf8').trim())).toBe(200);
      const dev = await kubectl(['--kubeconfig', kubeconfig, '--context', 'kwatch-sim-dev', 'get', 'pods'], {});
      expect(dev.stderr.trim()).toBe('No resources found in dev namespace.');
      const all = await kubectl(['--kubeconfig', kubeconfig, '--context', 'kwatch-sim-dev', 'get', 'pods', '-A'], {});
      expect(all.stderr).toContain('Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope');
    } finally {
      expect(await sim.stop()).toBe(0);
    }
  });

  it('--max-objects bounds what a controller creates: one line on stderr, and no more pods', async () => {
    const kubeconfig = join(dir, 'budget-kubeconfig');
    const sim = await startSim(['--max-objects', '3', '--kubeconfig-out', kubeconfig]);
    try {
      expect((await kubectl(['--kubeconfig', kubeconfig, 'create', 'deployment', 'web', '--image=nginx', '--replicas=10'], {})).code).toBe(0);
      const line = 'kwatch sim: the replicaset controller has created 3 pods, the --max-objects budget: it creates no more (delete the owner, or restart the sim with a larger --max-objects)\n';
      for (const deadline = Date.now() + 10_000; !sim.stderr().includes(line) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 25));
      expect(sim.stderr()).toBe(line);
      const pods = await kubectl(['--kubeconfig', kubeconfig, 'get', 'pods', '-o', 'name'], {});
      expect(pods.stdout.trim().split('\n')).toHaveLength(3);
    } finally {
      expect(await sim.stop()).toBe(0);
    }
  });

  it('--objects FILE|DIR creates the objects (several documents, a List, a folder) before it serves; a bad file is one line', async () => {
    const seeds = join(dir, 'seeds');
    mkdirSync(seeds, { recursive: true });
    writeFileSync(join(seeds, 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: seeded-one, namespace: shop}\ndata: {x: "1"}\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: seeded-two, namespace: shop}}\n');
    writeFileSync(join(seeds, 'b.json'), JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'seeded-web', namespace: 'shop' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } }));
    const kubeconfig = join(dir, 'seeded.kubeconfig');
    const sim = await startSim(['--kubeconfig-out', kubeconfig, '--objects', seeds]);
    try {
      const got = await kubectl(['--kubeconfig', kubeconfig, 'get', 'configmaps,deployments', '-n', 'shop', '-o', 'name'], {});
      expect(got.stdout.split('\n').filter((l) => l.includes('seeded')).sort()).toEqual(['configmap/seeded-one', 'configmap/seeded-two', 'deployment.apps/seeded-web']);
    } finally {
      await sim.stop();
    }
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: shop}\n');
    const bad = await kwatch(['sim', '--port', '0', '--kubeconfig-out', join(dir, 'bad.kubeconfig'), '--objects', join(dir, 'bad.yaml')], {});
    expect(bad.stderr).toBe(`error: --objects ${join(dir, 'bad.yaml')} document 1: needs apiVersion, kind and metadata.name\n`);
    expect(bad.code).toBe(1);
  });

  it('refuses a negative --max-objects in one line', async () => {
    const res = await kwatch(['sim', '--max-objects', '-1', '--kubeconfig-out', join(dir, 'unused')], {});
    expect(res.stderr).toBe('error: invalid argument "-1" for "--max-objects" flag: expected an integer from 0 to 1000000\n');
    expect(res.code).toBe(1);
  });

  it('refuses an unknown --fault in one line', async () => {
    const res = await kwatch(['sim', '--fault', 'drop-initial-events-end,bogus', '--kubeconfig-out', join(dir, 'unused')], {});
    expect(res.stderr).toBe('error: invalid --fault: unknown fault "bogus": use drop-watches-every, fail, delay, cut-watch or drop-initial-events-end\n');
    expect(res.code).toBe(1);
  });

  it('refuses --users without --tls in one line', async () => {
    const res = await kwatch(['sim', '--users', '--kubeconfig-out', join(dir, 'unused')], {});
    expect(res.stderr).toBe('error: --users needs --tls: the admin user authenticates with a client certificate\n');
    expect(res.code).toBe(1);
  });

  it('refuses a kubeconfig folder anyone may write to, in one line', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const res = await kwatch(['sim', '--port', '0', '--pods', '0', '--kubeconfig-out', join(shared, 'kubeconfig')], {});
    expect(res.stderr).toBe(`error: cannot write the kubeconfig: ${shared} is writable by every user: choose a folder of your own for the sim's kubeconfig (--kubeconfig-out)\n`);
    expect(res.code).toBe(1);
  });
});
