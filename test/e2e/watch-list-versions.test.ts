// End to end through the built CLI (run `npm run build` first): a client-go-1.35-style informer (kwatch events
// --watch-list, the WatchListClient path) syncs against every --kube-version and never hangs — streaming where the
// WatchList gate is on, falling back to LIST+WATCH on 1.33's 422 as client-go does.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { KUBE_VERSIONS } from '../../src/sim/kube-version.js';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const sims: SimServer[] = [];
afterAll(async () => { await Promise.all(sims.map((s) => s.close())); });

describe('watch-list informer against every served version (built CLI)', () => {
  for (const v of KUBE_VERSIONS) {
    it(`syncs against ${v}`, async () => {
      const sim = await startSimServer({ kubeVersion: v, nodes: 2, pods: 6, churn: 0 });
      sims.push(sim);
      const dir = tempDir('kwatch-e2e-watch-list-');
      const kubeconfig = join(dir, 'config');
      await sim.writeKubeconfig(kubeconfig);
      const r = await kwatch(['events', 'pods', '-A', '--watch-list', '--until-synced', '-o', 'ndjson'], { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') });
      expect(r.code, r.stderr).toBe(0);
      const recs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { stage: string; op: string; key: string | null });
      const pods = sim.api.list({ group: '', version: 'v1', resource: 'pods' }).map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
      expect(pods).toHaveLength(6);
      // Every pod reached the handler once, and the reflector synced.
      expect(recs.filter((x) => x.stage === 'handler' && x.op === 'OnAdd').map((x) => x.key).sort()).toEqual(pods);
      expect(recs.some((x) => x.stage === 'reflector' && x.op === 'synced')).toBe(true);
      const ops = recs.filter((x) => x.stage === 'reflector').map((x) => x.op);
      if (v === '1.33') {
        // The gate is off: the 422 makes the informer fall back to a LIST, as client-go does.
        expect(ops.slice(0, 4)).toEqual(['watch-start', 'watch-error', 'fallback', 'list-page']);
      } else {
        expect(ops).not.toContain('fallback');
        expect(ops).not.toContain('list-page');
      }
    }, 60_000);
  }
});
