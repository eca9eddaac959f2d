// A controller under `reconcile --exec` against a real cluster (here a `kwatch sim` process, reached over HTTP as any
// cluster is: not --sim) keeps its discovery cache beside its temporary kubeconfig, removed at exit. The endpoint's port
// is new every run, so a cache kept for it in ~/.kube/cache, or in a KUBECACHEDIR of the user's own, could never be
// read again.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL, Running, kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-exec-cache-');
const simKubeconfig = join(dir, 'sim.kubeconfig');
let sim: Running | undefined;

/** The entries of a cache root's discovery folder (none when it was never made). */
const discoveryEntries = (cacheRoot: string): string[] => (existsSync(join(cacheRoot, 'discovery')) ? readdirSync(join(cacheRoot, 'discovery')).sort() : []);

beforeAll(async () => {
  sim = new Running(['sim', '--port', '0', '--nodes', '1', '--pods', '2', '--churn', '0', '--kubeconfig-out', simKubeconfig], {});
  const ready = await kwatch(['sim', '--wait', '--kubeconfig-out', simKubeconfig], {});
  expect(ready.code, ready.stderr).toBe(0);
}, 90_000);
afterAll(async () => {
  await sim?.stop('SIGINT');
});

describe('reconcile --exec against a cluster: the controller\'s discovery cache', { timeout: 60_000 }, () => {
  it('with no KUBECACHEDIR, goes beside the temporary kubeconfig (KUBECONFIG), not into HOME\'s ~/.kube/cache', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', '--', 'sh', '-c', `${KUBECTL} get pods -A -o name && echo "cache=$KUBECACHEDIR"`],
      { HOME: home, KUBECONFIG: simKubeconfig, KUBECACHEDIR: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^sh \| pod\/\S+$/m);
    // No 127.0.0.1_<endpoint port> folder (nor any other) under HOME.
    expect(discoveryEntries(join(home, '.kube', 'cache'))).toEqual([]);
    const cache = /^sh \| cache=(\S+)$/m.exec(r.stderr)?.[1];
    expect(cache).toMatch(/\/kwatch-exec-[^/]+\/cache$/);
    expect(existsSync(cache!)).toBe(false);
  });

  it('replaces a KUBECACHEDIR of the user\'s own ({kubeconfig}): their folder gains no entry for the endpoint', async () => {
    const mine = join(dir, 'my-cache');
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', '--', 'sh', '-c', `${KUBECTL} --kubeconfig {kubeconfig} get pods -A -o name && echo "cache=$KUBECACHEDIR"`],
      { HOME: join(dir, 'unused-home'), KUBECONFIG: simKubeconfig, KUBECACHEDIR: mine });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^sh \| pod\/\S+$/m);
    expect(discoveryEntries(mine)).toEqual([]);
    expect(/^sh \| cache=(\S+)$/m.exec(r.stderr)?.[1]).toMatch(/\/kwatch-exec-[^/]+\/cache$/);
  });
});
