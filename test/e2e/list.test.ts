// End to end through the built CLI (run `npm run build` first): `kwatch list` against an embedded
// server started here — pages, decoded continue tokens, an expired token, watch-list comparison.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kwatch, Running } from './events-helpers.js';
import { reportRows } from './report-rows.js';
import { tempDir } from '../temp-dir.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const dir = tempDir('kwatch-e2e-list-');
let sim: SimServer;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  sim.api.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'fifty' } });
  for (let i = 0; i < 50; i++) {
    sim.api.create(PODS, { metadata: { name: `p-${String(i).padStart(2, '0')}`, namespace: 'fifty' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  }
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
});
afterAll(() => sim?.close());

/** The page table's rows as objects. */
const rows = (stdout: string) => reportRows(stdout);

describe('kwatch list (built CLI)', () => {
  it('--page-size 7 over 50 objects: 8 pages (7×7 + 1), tokens decoded, remaining counts, one resourceVersion', async () => {
    const res = await kwatch(['list', 'pods', '-n', 'fifty', '--page-size', '7'], env);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const pages = rows(res.stdout);
    expect(pages.map((p) => p.PAGE)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(pages.map((p) => p.ITEMS)).toEqual(['7', '7', '7', '7', '7', '7', '7', '1']);
    expect(pages.map((p) => p.REMAINING)).toEqual(['43', '36', '29', '22', '15', '8', '1', '<none>']);
    const rv = String(sim.api.currentRevision());
    expect(pages[0].CONTINUE).toBe(`rv=${rv} start=p-06`);
    expect(pages[6].CONTINUE).toBe(`rv=${rv} start=p-48`);
    expect(pages[7].CONTINUE).toBe('<none>');
    expect(res.stdout).toMatch(new RegExp(`^Total: 50 items in 8 pages, .*; resourceVersion ${rv}$`, 'm'));
  });

  it('--chunk-size is an alias, and -o ndjson prints the 50 objects', async () => {
    const res = await kwatch(['list', 'po', '-n', 'fifty', '--chunk-size', '7', '-o', 'ndjson'], env);
    expect(res.code).toBe(0);
    const names = res.stdout.trim().split('\n').map((l) => JSON.parse(l).metadata.name);
    expect(names).toHaveLength(50);
    expect(names[0]).toBe('p-00');
    expect(names[49]).toBe('p-49');
  });

  it('-o json and -o yaml carry the list\'s resourceVersion (kubectl prints ""), so jsonpath can feed replay --from-rv', async () => {
    const rv = String(sim.api.currentRevision());
    const json = await kwatch(['list', 'pods', '-n', 'fifty', '--page-size', '7', '-o', 'json'], env);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout);
    expect(list).toMatchObject({ kind: 'List', metadata: { resourceVersion: rv } });
    expect(list.items).toHaveLength(50);
    const yaml = await kwatch(['list', 'pods', '-n', 'fifty', '-o', 'yaml'], env);
    expect(yaml.stdout).toMatch(new RegExp(`^metadata:\\n  resourceVersion: "${rv}"$`, 'm'));
    const path = await kwatch(['list', 'pods', '-n', 'fifty', '-o', 'jsonpath={.metadata.resourceVersion}'], env);
    expect(path.stdout).toBe(rv);
  });

  it('--page-size 0 sends one unpaged request', async () => {
    const res = await kwatch(['list', 'pods', '-n', 'fifty', '--page-size', '0'], env);
    expect(rows(res.stdout).map((p) => [p.PAGE, p.ITEMS, p.CONTINUE])).toEqual([['1', '50', '<none>']]);
  });

  it('explains an expired continue token and fails by default; --on-expired restart lists again', async () => {
    for (const onExpired of ['fail', 'restart'] as const) {
      sim.faults.reset();
      sim.faults.delay({ ms: 300, verb: 'list', path: '/namespaces/fifty/pods' });
      const before = sim.requests().length;
      const list = new Running(['list', 'pods', '-n', 'fifty', '--page-size', '20', '--on-expired', onExpired], env);
      // While page 2 waits out its delay: a write, then a compaction past the first page's revision.
      const deadline = Date.now() + 10_000;
      while (!sim.requests().slice(before).some((r) => r.verb === 'list' && r.url.includes('continue='))) {
        if (Date.now() > deadline) throw new Error('page 2 was never requested');
        await new Promise((r) => setTimeout(r, 5));
      }
      sim.faults.reset();
      sim.api.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: `bump-${onExpired}`, namespace: 'fifty' } });
      sim.faults.compact();
      const { code } = await list.wait();
      expect(list.stderr).toContain('The continue token sent with request 2 has expired (HTTP 410 Expired)');
      expect(list.stderr).toContain('--on-expired inconsistent');
      if (onExpired === 'fail') {
        expect(code).toBe(1);
        expect(list.stderr.trim().split('\n').at(-1)).toMatch(/^error: the continue token of request 2 expired \(410 Expired\): rerun with --on-expired restart or --on-expired inconsistent$/);
      } else {
        expect(code).toBe(0);
        expect(list.stderr).toContain('restarting the list');
      }
    }
  });

  it('an expired resourceVersion is one line and a non-zero exit', async () => {
    sim.api.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'bump-rv', namespace: 'fifty' } });
    sim.faults.compact();
    const res = await kwatch(['list', 'pods', '-n', 'fifty', '--rv', '2', '--rv-match', 'Exact'], env);
    expect(res).toMatchObject({ code: 1, stdout: '', stderr: 'error: Error from server (Expired): The resourceVersion for the provided list is too old.\n' });
  });

  it('--compare-watch-list fetches the collection both ways and reports them side by side', async () => {
    const res = await kwatch(['list', 'pods', '-n', 'fifty', '--compare-watch-list', '--page-size', '7'], env);
    expect(res.code).toBe(0);
    const table = rows(res.stdout);
    expect(table.map((r) => [r.METHOD, r.REQUESTS, r.ITEMS])).toEqual([
      ['paged-list', '8', '50'],
      ['watch-list', '1', '50'],
    ]);
    expect(res.stdout).toMatch(/^watch-list \/ paged-list: time [\d.]+x, bytes [\d.]+x, peak heap/m);
  });
});
