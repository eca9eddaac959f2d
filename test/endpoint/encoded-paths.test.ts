// Paths whose percent-escapes or empty segments read differently once decoded. kube-apiserver reads the path Go's
// server has already decoded (req.URL.Path: `%2F` is a slash there) and splits it with empty inner segments kept
// (apiserver/pkg/endpoints/request/requestinfo.go NewRequestInfo and splitPath; go-restful's CurlyRouter routes on
// URL.Path too). A stand-in target reads each request that way and logs it: no write may reach it but as a dry run,
// and no write through a pod's proxy or exec at all.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type EndpointWriteMode } from '../../src/endpoint/endpoint-server.js';
import { Fork } from '../../src/endpoint/fork.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';

interface Arrival { method: string; path: string; dryRun: boolean }

/** Go's URL.Path: every %XX decoded, a slash included. */
const goPath = (rawPath: string): string => Buffer.from(rawPath.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WORKLOAD = /\/(pods|services|nodes)\/[^/]*\/(proxy|exec|attach|portforward)(\/|$)/;

/** Answers every request (an empty list for a GET), logging what kube-apiserver would read it as. */
function standInTarget(): Promise<{ url: string; arrivals: Arrival[]; server: Server }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = goPath(q < 0 ? url : url.slice(0, q));
      arrivals.push({ method: req.method ?? '', path, dryRun: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)).getAll('dryRun').includes('All') });
      const body = req.method === 'GET' ? { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] } : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, server })));
}

let target: Awaited<ReturnType<typeof standInTarget>>;
let upstream: Connection;
beforeAll(async () => {
  target = await standInTarget();
  upstream = connectionFromUrl(target.url);
});
afterAll(async () => {
  await upstream?.close();
  await new Promise((r) => target?.server.close(r));
});

/** One request with its target sent exactly as written (fetch would normalise some of these). */
function send(endpointUrl: string, method: string, path: string, body = '{}'): Promise<number> {
  const u = new URL(endpointUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path: `${u.pathname}${path}`, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const PATHS: Array<[string, string]> = [
  // A create of a ConfigMap, its slashes escaped: kube stores it.
  ['POST', '/api/v1%2Fnamespaces%2Fdefault%2Fconfigmaps'],
  ['POST', '/api%2Fv1%2Fnamespaces%2Fdefault%2Fconfigmaps'],
  ['DELETE', '/apis/apps/v1%2Fnamespaces%2Fdefault%2Fdeployments%2Fweb'],
  // A POST through a pod's proxy, its subresource hidden in the name.
  ['POST', '/api/v1/namespaces/default/pods/web%2Fproxy/admin/reset'],
  ['POST', '/api/v1/namespaces/default/pods/web%2Fexec?command=rm'],
  // …or dressed as a TokenRequest (a question kwatch passes on as it is).
  ['POST', '/api/v1/namespaces/default%2Fpods%2Fweb%2Fproxy%2Fadmin/serviceaccounts/sa/token'],
  // An empty namespace segment: kube keeps it, so this is pods/web/proxy in namespace "".
  ['POST', '/api/v1/namespaces//pods/web/proxy/admin'],
];

describe.each(['intercept', 'server-dry-run', 'overlay'] as EndpointWriteMode[])('escaped and empty path segments under --writes %s', (mode) => {
  it('reach the target only as dry runs, and never as a write through a proxy or exec', async () => {
    const tracer = new Tracer();
    const fork = mode === 'overlay' ? new Fork({ upstream, tracer, maxObjects: 10_000, notice: () => {} }) : undefined;
    const endpoint = await startEndpoint({ upstream, mode, fork, tracer, loopThreshold: 5, stallAfterMs: 300_000 });
    try {
      const from = target.arrivals.length;
      for (const [method, path] of PATHS) await send(endpoint.url, method, path);
      const writes = target.arrivals.slice(from).filter((a) => WRITE_METHODS.has(a.method));
      expect(writes.filter((a) => WORKLOAD.test(a.path))).toEqual([]);
      expect(writes.filter((a) => !a.dryRun)).toEqual([]);
    } finally {
      await endpoint.close();
    }
  });
});
