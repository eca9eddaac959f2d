import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiResourcesTable, listApiResources } from '../../src/kube/discovery/api-resources.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { formatColumns } from '../../src/render/columns.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kubectl } from './kubectl.js';
import { tempDir } from '../temp-dir.js';

let sim: SimServer;
let conn: Connection;
let kubeconfig: string;
const dir = tempDir('kwatch-apires-');

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wg'], categories: ['all', 'gadgets'] },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

async function render(output: 'table' | 'wide' | 'name', opts: Parameters<typeof listApiResources>[1] = {}) {
  const { rows } = await listApiResources(conn, { cacheDir: join(dir, 'kwatch-cache'), ...opts });
  const t = apiResourcesTable(rows, output);
  return formatColumns(t.headers, t.cells);
}

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  const res = await fetch(`${sim.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(crd) });
  expect(res.status).toBe(201);
  conn = connectionFromUrl(sim.url);
});
afterAll(async () => {
  await conn?.close();
  await sim?.close();
});

describe('kwatch api-resources matches kubectl api-resources', () => {
  const env = () => ({ KUBECACHEDIR: join(dir, 'kubectl-cache') });
  for (const [label, args, output, opts] of [
    ['default columns', [], 'table', {}],
    ['-o wide', ['-o', 'wide'], 'wide', {}],
    ['-o name', ['-o', 'name'], 'name', {}],
    ['--sort-by kind', ['--sort-by', 'kind'], 'table', { sortBy: 'kind' }],
    ['--sort-by name', ['--sort-by', 'name'], 'table', { sortBy: 'name' }],
    ['--namespaced=false', ['--namespaced=false'], 'table', { namespaced: false }],
    ['--api-group apps --verbs list,watch', ['--api-group', 'apps', '--verbs', 'list,watch'], 'table', { apiGroup: 'apps', verbs: ['list', 'watch'] }],
    ['--api-group "" (core)', ['--api-group='], 'table', { apiGroup: '' }],
    ['--categories all -o wide', ['--categories', 'all', '-o', 'wide'], 'wide', { categories: ['all'] }],
  ] as const) {
    it(`${label}, built-ins and a CRD`, async () => {
      const want = await kubectl(['--kubeconfig', kubeconfig, 'api-resources', ...args], env());
      expect(want.stderr).toBe('');
      const got = await render(output, opts as never);
      expect(got).toBe(want.stdout);
      if (output === 'table' && !('apiGroup' in opts) && !('namespaced' in opts)) expect(got).toMatch(/^widgets\s+wg\s+example\.com\/v1\s+true\s+Widget$/m);
    });
  }
});
