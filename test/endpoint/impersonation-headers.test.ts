// A client's identity through the endpoint: each Impersonate-Group (and Impersonate-Extra-*) line a client sends is
// one group to kube-apiserver, which reads req.Header[Impersonate-Group] value by value and never splits a value on
// commas (apiserver/pkg/endpoints/filters/impersonation.go; client-go's transport Adds one line per group). Joined
// into one line, `g1` and `g2` would reach the target as the single group "g1, g2". kwatch's own kubeconfig
// `as-groups` goes the same way. A stand-in target keeps each request's header lines as sent.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { writeEndpointKubeconfig } from '../../src/endpoint/endpoint-kubeconfig.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, loadConnection, type Connection } from '../../src/kube/http/connection.js';
import { KUBECTL } from '../e2e/events-helpers.js';

/** Each request's header lines, as Go's server keeps them: name (lowercased) → values, one per line. */
type Lines = Map<string, string[]>;

function standInTarget(): Promise<{ url: string; seen: Lines[]; server: Server }> {
  const seen: Lines[] = [];
  const server = createServer((req, res) => {
    const lines: Lines = new Map();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i].toLowerCase();
      lines.set(name, [...(lines.get(name) ?? []), req.rawHeaders[i + 1]]);
    }
    seen.push(lines);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answerTo(new URL(req.url ?? '/', 'http://x').pathname)));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })));
}

/** Enough discovery for kubectl to find configmaps; a list for everything else. */
function answerTo(path: string): unknown {
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (path === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };
  if (path === '/api/v1') return { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list', 'watch'] }] };
  return { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] };
}

const dir = mkdtempSync(join(tmpdir(), 'kwatch-impersonation-'));
let target: Awaited<ReturnType<typeof standInTarget>>;
beforeAll(async () => { target = await standInTarget(); });
afterAll(async () => {
  await new Promise((r) => target?.server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function withEndpoint(upstream: Connection, body: (url: string, token: string, caPem: string | undefined) => Promise<void>): Promise<void> {
  const endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer: new Tracer(), loopThreshold: 5, stallAfterMs: 300_000 });
  try {
    await body(endpoint.url, endpoint.token, endpoint.caPem);
  } finally {
    await endpoint.close();
    await upstream.close();
  }
}

describe('impersonation through the endpoint', () => {
  it('passes each Impersonate-Group and Impersonate-Extra line of a client as its own line (a plain GET and a watch)', async () => {
    await withEndpoint(connectionFromUrl(target.url), async (url) => {
      const u = new URL(url);
      for (const query of ['', '?watch=1']) {
        const from = target.seen.length;
        await new Promise<void>((resolve, reject) => {
          const req = httpRequest({ host: u.hostname, port: u.port, path: `${u.pathname}/api/v1/namespaces/a/configmaps${query}`, headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': ['g1', 'g2'], 'Impersonate-Extra-Scopes': ['view', 'edit'] } }, (res) => {
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
          req.end();
        });
        const lines = target.seen[from];
        expect(lines.get('impersonate-user'), query).toEqual(['alice']);
        expect(lines.get('impersonate-group'), query).toEqual(['g1', 'g2']);
        expect(lines.get('impersonate-extra-scopes'), query).toEqual(['view', 'edit']);
      }
    });
  });

  it('kubectl --as-group twice reaches the target as two groups', async () => {
    await withEndpoint(connectionFromUrl(target.url), async (url, token, caPem) => {
      const kubeconfig = join(dir, 'kubectl-kubeconfig');
      await writeEndpointKubeconfig(kubeconfig, { server: url, token, namespace: 'a', caPem });
      const from = target.seen.length;
      await new Promise<void>((resolve, reject) => execFile(KUBECTL, ['--kubeconfig', kubeconfig, 'get', 'configmaps', '--as', 'alice', '--as-group', 'g1', '--as-group', 'g2', '-o', 'name'], (err, _out, stderr) => (err ? reject(new Error(stderr)) : resolve())));
      const lists = target.seen.slice(from).filter((l) => l.has('impersonate-user'));
      expect(lists.length).toBeGreaterThan(0);
      for (const l of lists) expect(l.get('impersonate-group')).toEqual(['g1', 'g2']);
    });
  });

  it('kwatch\'s own kubeconfig as-groups: one line per group', async () => {
    const kubeconfig = join(dir, 'own-kubeconfig');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: t\n  cluster: {server: "${target.url}"}\nusers:\n- name: u\n  user: {token: t0, as: bob, as-groups: [g1, g2]}\ncontexts:\n- name: c\n  context: {cluster: t, user: u}\n`);
    const conn = await loadConnection({ kubeconfig });
    try {
      const from = target.seen.length;
      await conn.request({ path: '/api/v1/namespaces/a/configmaps' });
      expect(target.seen[from].get('impersonate-user')).toEqual(['bob']);
      expect(target.seen[from].get('impersonate-group')).toEqual(['g1', 'g2']);
    } finally {
      await conn.close();
    }
  });
});
