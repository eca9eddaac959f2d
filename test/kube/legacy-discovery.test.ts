import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiResourcesTable, listApiResources } from '../../src/kube/discovery/api-resources.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { discoveryReport } from '../../src/kube/discovery/discovery-report.js';
import { resolveResource } from '../../src/kube/discovery/resolve-resource.js';
import { formatColumns } from '../../src/render/columns.js';
import { kubectl } from './kubectl.js';
import { json, startStub, type StubServer } from './stub-server.js';
import { tempDir } from '../temp-dir.js';

// A server without aggregated discovery (as before Kubernetes 1.26), one group-version failing.
const core = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['po'], categories: ['all'] },
    { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch'] },
    { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: ['get', 'list'], shortNames: ['no'] },
    { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['get', 'list'], shortNames: ['ev'] },
    { name: 'bindings', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
  ],
};
const group = (name: string, ...versions: string[]) => ({ name, versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })), preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] } });
const apps = (v: string) => ({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `apps/${v}`,
  resources: [{ name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get', 'list', 'watch'], shortNames: ['deploy'], categories: ['all'] }, ...(v === 'v1beta1' ? [{ name: 'oldthings', singularName: 'oldthing', namespaced: true, kind: 'OldThing', verbs: ['get'] }] : [])],
});

let stub: StubServer;
let conn: Connection;
const dir = tempDir('kwatch-legacy-');

beforeAll(async () => {
  stub = await startStub({
    '/api': (_q, r) => json(r, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }] }),
    '/apis': (_q, r) => json(r, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [group('apps', 'v1', 'v1beta1'), group('events.k8s.io', 'v1'), group('broken.example.com', 'v1')] }),
    '/api/v1': (_q, r) => json(r, 200, core),
    '/apis/apps/v1': (_q, r) => json(r, 200, apps('v1')),
    '/apis/apps/v1beta1': (_q, r) => json(r, 200, apps('v1beta1')),
    '/apis/events.k8s.io/v1': (_q, r) => json(r, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'events.k8s.io/v1', resources: [{ name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['get', 'list'], shortNames: ['ev'] }] }),
    '/apis/broken.example.com/v1': (_q, r) => json(r, 503, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server is currently unable to handle the request', reason: 'ServiceUnavailable', code: 503 }),
  });
  conn = connectionFromUrl(stub.url);
});
afterAll(async () => {
  await conn?.close();
  await stub?.close();
});

describe('a server without aggregated discovery', () => {
  it('is discovered through the per-group-version documents, fetched in parallel, a failing one reported not fatal', async () => {
    const r = await discoveryReport(conn, { cacheDir: join(dir, 'a') });
    expect(r.mode).toBe('legacy');
    expect(r.requests.map((q) => q.path).sort()).toEqual(['/api', '/api/v1', '/apis', '/apis/apps/v1', '/apis/apps/v1beta1', '/apis/broken.example.com/v1', '/apis/events.k8s.io/v1']);
    expect(Object.keys(r.failed)).toEqual(['broken.example.com/v1']);
    expect(r.failed['broken.example.com/v1']).toMatch(/unable to handle the request/);
    expect(r.warnings.join('\n')).toMatch(/couldn't get resource list for broken.example.com\/v1/);
  });

  it('gives the same api-resources table as kubectl, and resolves names by priority', async () => {
    const kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: s\nclusters: [{name: s, cluster: {server: "${stub.url}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: s, context: {cluster: s, user: u}}]\n`);
    const want = await kubectl(['--kubeconfig', kubeconfig, 'api-resources', '-o', 'wide'], { KUBECACHEDIR: join(dir, 'kubectl') });
    const { rows, failed } = await listApiResources(conn, { cacheDir: join(dir, 'b') });
    const t = apiResourcesTable(rows, 'wide');
    expect(formatColumns(t.headers, t.cells)).toBe(want.stdout);
    expect(want.stderr).toMatch(/broken\.example\.com\/v1/);
    expect(Object.keys(failed)).toEqual(['broken.example.com/v1']);
    // a resource only in a non-preferred version, and the core group winning for "events"
    expect(await resolveResource(conn, 'oldthings', { cacheDir: join(dir, 'b') })).toMatchObject({ group: 'apps', version: 'v1beta1' });
    expect(await resolveResource(conn, 'ev', { cacheDir: join(dir, 'b') })).toMatchObject({ group: '', version: 'v1' });
    expect(await resolveResource(conn, 'binding', { cacheDir: join(dir, 'b') })).toMatchObject({ resource: 'bindings', singular: 'binding' });
  });

  it('falls back to legacy documents when only /apis is aggregated', async () => {
    const half = await startStub({
      '/api': (_q, r) => json(r, 200, { kind: 'APIVersions', versions: ['v1'] }),
      '/apis': (_q, r) => json(r, 200, { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', items: [{ metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [] }] }] }, { 'Content-Type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }),
      '/api/v1': (_q, r) => json(r, 200, core),
      '/apis/apps/v1': (_q, r) => json(r, 200, apps('v1')),
    });
    const c = connectionFromUrl(half.url);
    try {
      const r = await discoveryReport(c, { cacheDir: join(dir, 'c'), explain: 'deploy' });
      expect(r.mode).toBe('legacy');
      expect(r.requests.map((q) => q.path)).toContain('/apis/apps/v1');
      expect(r.explain?.resources[0]).toMatchObject({ resource: 'deployments', source: 'GET /apis/apps/v1' });
    } finally {
      await c.close();
      await half.close();
    }
  });
});
