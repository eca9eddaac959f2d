// A `--sim` run keeps the embedded server's discovery cache in memory (built CLI): it needs no temporary folder and
// writes no cache file, yet resolves names as before (short names, groups, a CRD the sim serves) and logs the same
// discovery requests under -v 6. `--cache-dir` and `kwatch discovery --sim` still keep the cache on disk.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUBECTL, kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-sim-disc-');

/** Every path under `root`, relative to it. */
const tree = (root: string): string[] => (existsSync(root) ? readdirSync(root, { recursive: true, encoding: 'utf8' }) : []);

/**
 * An environment in which any discovery cache file a run wrote would show or fail: a fresh HOME, and $TMPDIR and
 * $KUBECACHEDIR naming a plain file, so that no folder can be made under either (for root as well).
 */
function sealedEnv(name: string): { env: Record<string, string>; home: string } {
  const home = join(dir, name);
  const plain = join(dir, `${name}-not-a-folder`);
  writeFileSync(plain, '');
  return { home, env: { HOME: home, TMPDIR: plain, KUBECACHEDIR: plain } };
}

const SIM = ['--sim', '--sim-seed', '5', '--sim-churn', '0', '-n', 'default'];

describe('--sim keeps discovery in memory', { timeout: 120_000 }, () => {
  it('a --sim run needs no temporary folder and leaves no discovery file; --cache-dir writes there and lists the same', async () => {
    const { env, home } = sealedEnv('list');
    const r = await kwatch(['list', 'po', ...SIM, '-o', 'name'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pod\/\S+\n/);
    expect(tree(home).filter((p) => /discovery|etags/.test(p))).toEqual([]);

    const cacheDir = join(dir, 'asked-for');
    const kept = await kwatch(['list', 'po', ...SIM, '-o', 'name', '--cache-dir', cacheDir], env);
    expect(kept.stderr).toBe('');
    expect(kept.stdout).toBe(r.stdout);
    expect(tree(join(cacheDir, 'discovery')).some((p) => p.endsWith('apps/v1/serverresources.json'))).toBe(true);
  });

  it('-v 6 logs the same discovery requests: /api and /apis, once each, before the LIST', async () => {
    const { env } = sealedEnv('verbose');
    const r = await kwatch(['list', 'deploy', ...SIM, '-o', 'name', '-v', '6'], env);
    expect(r.code, r.stderr).toBe(0);
    const gets = [...r.stderr.matchAll(/\] GET http:\/\/127\.0\.0\.1:\d+(\/\S*)\?\S* 200 OK/g)].map((m) => m[1]);
    expect(gets.slice(0, 2).sort()).toEqual(['/api', '/apis']);
    expect(gets.slice(2)).toEqual(['/apis/apps/v1/namespaces/default/deployments']);
    expect(r.stdout).toContain('deployment.apps/');
  });

  it('resolves a CRD the sim serves by its short name', async () => {
    const { env, home } = sealedEnv('crd');
    const seed = join(dir, 'gizmo.yaml');
    writeFileSync(
      seed,
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gizmos.mem.example.com}\nspec:\n  group: mem.example.com\n  scope: Namespaced\n' +
        '  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList, shortNames: [gzm]}\n' +
        '  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n' +
        '---\napiVersion: mem.example.com/v1\nkind: Gizmo\nmetadata: {name: g1, namespace: default}\nspec: {size: 1}\n',
    );
    const module = join(dir, 'gizmo-module.mjs');
    writeFileSync(module, "export default { for: 'gzm', reconcile() { return {}; } };\n");
    const r = await kwatch(['reconcile', 'gzm', '--with', module, ...SIM, '--sim-pods', '0', '--sim-objects', seed, '--once', '-o', 'ndjson'], env);
    expect(r.code, r.stderr).toBe(0);
    const converged = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { stage?: string; op?: string; key?: string }).filter((x) => x.stage === 'reconcile' && x.op === 'converged');
    expect(converged.map((x) => x.key)).toEqual(['default/g1']);
    expect(tree(home).filter((p) => /discovery|etags/.test(p))).toEqual([]);
  });

  it('a controller started by reconcile --exec --sim keeps its discovery cache beside its temporary kubeconfig, not under HOME', async () => {
    const home = join(dir, 'exec-home');
    mkdirSync(home);
    const r = await kwatch(['reconcile', '--exec', '--sim', '--sim-churn', '0', '--', 'sh', '-c', `${KUBECTL} get deploy -o name && echo "cache=$KUBECACHEDIR"`], { HOME: home, KUBECACHEDIR: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^sh \| deployment\.apps\/\S+$/m);
    const cache = /^sh \| cache=(\S+)$/m.exec(r.stderr)?.[1];
    expect(cache).toMatch(/\/kwatch-exec-[^/]+\/cache$/);
    expect(existsSync(cache!)).toBe(false);
    expect(tree(home).filter((p) => /discovery/.test(p))).toEqual([]);
  });

  it('kwatch discovery --sim still shows the cache files it wrote, in a folder removed at exit', async () => {
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const r = await kwatch(['discovery', '--sim', '-o', 'json'], { TMPDIR: tmp });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { cacheDir: string; files: { file: string; state: string; written: boolean }[] };
    expect(report.cacheDir.startsWith(join(tmp, 'kwatch-sim-cache-'))).toBe(true);
    expect(report.files.find((f) => f.file === 'servergroups.json')).toEqual({ file: 'servergroups.json', state: 'miss', written: true });
    expect(readdirSync(tmp)).toEqual([]);
  });
});
