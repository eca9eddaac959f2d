import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatColumns } from '../../src/render/columns.js';
import { KUBECTL } from '../kubectl-lookup.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

// The embedded server's full discovery, printed by real kubectl, against formatColumns over the
// same discovery documents (fetched here in their legacy form).
const run = promisify(execFile);

interface APIResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

describe('formatColumns against kubectl api-resources on the embedded server', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ pods: 0, nodes: 0, churn: 0 });
  });
  afterAll(() => sim?.close());

  const get = async (path: string) => (await fetch(sim.url + path, { headers: { accept: 'application/json' } })).json();

  async function rows(wide: boolean): Promise<string[][]> {
    const groupVersions: { group: string; gv: string; path: string }[] = [];
    for (const v of ((await get('/api')) as { versions: string[] }).versions.slice(0, 1)) groupVersions.push({ group: '', gv: v, path: `/api/${v}` });
    const groups = (await get('/apis')) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    for (const g of groups.groups) groupVersions.push({ group: g.name, gv: g.preferredVersion.groupVersion, path: `/apis/${g.preferredVersion.groupVersion}` });
    const all: { group: string; gv: string; r: APIResource }[] = [];
    for (const gv of groupVersions) {
      const list = (await get(gv.path)) as { resources: APIResource[] };
      for (const r of list.resources) if (!r.name.includes('/')) all.push({ group: gv.group, gv: gv.gv, r });
    }
    // kubectl's default order: API group, then resource name.
    all.sort((a, b) => (a.group === b.group ? (a.r.name < b.r.name ? -1 : 1) : a.group < b.group ? -1 : 1));
    return all.map(({ gv, r }) => {
      const row = [r.name, (r.shortNames ?? []).join(','), gv, String(r.namespaced), r.kind];
      return wide ? [...row, r.verbs.join(','), (r.categories ?? []).join(',')] : row;
    });
  }
  const HEADERS = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'];

  it('prints the same bytes as kubectl api-resources', async () => {
    const { stdout } = await run(KUBECTL, ['--server', sim.url, 'api-resources']);
    expect(formatColumns(HEADERS, await rows(false))).toBe(stdout);
  });

  it('prints the same bytes as kubectl api-resources -o wide', async () => {
    const { stdout } = await run(KUBECTL, ['--server', sim.url, 'api-resources', '-o', 'wide']);
    expect(formatColumns([...HEADERS, 'VERBS', 'CATEGORIES'], await rows(true))).toBe(stdout);
  });
});
