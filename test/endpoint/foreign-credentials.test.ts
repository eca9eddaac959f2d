// The endpoint acts with the user's own credentials, for its own clients only. A request that proves itself by the
// plain-HTTP secret path (--no-tls) but carries credentials of its own (another ServiceAccount's token, basic auth) asks
// to be someone else: passing it on with the user's credentials in their place would silently give it the user's
// rights (an RBAC check of that ServiceAccount through kwatch would pass as the user). Over TLS such a request already
// gets 401, as its token is not the endpoint's; the secret path answers the same.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';

let target: Server;
let targetUrl: string;
const seen: Array<string | undefined> = [];
beforeAll(async () => {
  target = createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => { await new Promise((r) => target.close(r)); });

describe('a client with credentials of its own, through the secret path', () => {
  it('is refused (401), never passed on with the user\'s credentials; the endpoint\'s own token, or none, passes', async () => {
    const upstream: Connection = connectionFromUrl(targetUrl, { token: 'users-own-token' });
    const endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer: new Tracer(), loopThreshold: 5, stallAfterMs: 300_000 });
    try {
      const status = async (authorization?: string) => {
        const r = await fetch(`${endpoint.url}/api/v1/namespaces`, authorization === undefined ? {} : { headers: { Authorization: authorization } });
        await r.body?.cancel();
        return r.status;
      };
      const from = seen.length;
      expect(await status('Bearer another-serviceaccount-token')).toBe(401);
      expect(await status(`Basic ${Buffer.from('bob:pw').toString('base64')}`)).toBe(401);
      expect(seen.slice(from)).toEqual([]);
      expect(await status()).toBe(200);
      expect(await status(`Bearer ${endpoint.token}`)).toBe(200);
      expect(seen.slice(from)).toEqual(['Bearer users-own-token', 'Bearer users-own-token']);
    } finally {
      await endpoint.close();
      await upstream.close();
    }
  });
});
