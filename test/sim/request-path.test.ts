// Path traversal (issue 14, item 8): the sim routes on the decoded path without resolving dot segments and refuses
// names and namespaces that are not one path segment, as kube-apiserver does — `..` in any spelling must never climb
// from a name to its namespace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { rawHttp } from './sim-helpers.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer();
  sim.api.create(NAMESPACES, { metadata: { name: 'victim' } });
  sim.api.create(CONFIGMAPS, { metadata: { name: 'keep', namespace: 'victim' }, data: { a: '1' } });
  sim.api.create(SECRETS, { metadata: { name: 'token', namespace: 'victim' }, data: { t: 'c2VjcmV0' } });
});
afterAll(() => sim.close());

const send = (method: string, path: string) => rawHttp(sim.url, method, path);

/** kube's Status for a 400 BadRequest. */
const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message });

function victimIntact(): void {
  expect(sim.api.get(NAMESPACES, undefined, 'victim')?.metadata.deletionTimestamp).toBeUndefined();
  expect(sim.api.get(CONFIGMAPS, 'victim', 'keep')).toBeDefined();
}

describe('dot segments and encoded slashes in names and namespaces', () => {
  for (const dots of ['..', '%2e%2e', '%2E%2e', '.%2e']) {
    it(`DELETE …/configmaps/${dots} is a 400 and leaves the namespace and its objects alone`, async () => {
      const r = await send('DELETE', `/api/v1/namespaces/victim/configmaps/${dots}`);
      expect(r.status).toBe(400);
      expect(r.json).toEqual(badRequest(`Name parameter invalid: "..": may not be '..'`));
      victimIntact();
    });
  }

  it('a name of "." is a 400, not the collection', async () => {
    for (const dot of ['.', '%2e', '%2E']) {
      const r = await send('GET', `/api/v1/namespaces/victim/configmaps/${dot}`);
      expect(r.json).toEqual(badRequest(`Name parameter invalid: ".": may not be '.'`));
    }
  });

  it('GET …/namespaces/%2e%2e/secrets is a 400 and lists no Secret of any namespace', async () => {
    for (const dots of ['..', '%2e%2e', '%2E%2e']) {
      const r = await send('GET', `/api/v1/namespaces/${dots}/secrets`);
      expect(r.status).toBe(400);
      expect(r.json).toEqual(badRequest(`Namespace parameter invalid: "..": may not be '..'`));
      expect(r.text).not.toContain('c2VjcmV0');
    }
  });

  it('a watch through the deprecated /watch/ prefix is refused the same way', async () => {
    const r = await send('GET', '/api/v1/watch/namespaces/%2e%2e/secrets?timeoutSeconds=1');
    expect(r.json).toEqual(badRequest(`Namespace parameter invalid: "..": may not be '..'`));
  });

  it('the namespace object itself cannot be reached as a name of ".."', async () => {
    const r = await send('DELETE', '/api/v1/namespaces/victim/%2e%2e');
    expect(r.status).not.toBe(200);
    victimIntact();
    const d = await send('DELETE', '/api/v1/namespaces/%2e%2e');
    expect(d.json).toEqual(badRequest(`Name parameter invalid: "..": may not be '..'`));
    victimIntact();
  });

  // kube decodes the whole path before splitting it (Go's req.URL.Path; apiserver requestinfo.go splitPath), so an
  // escaped slash never reaches a name or a namespace: it separates segments, and these paths name no handler (404).
  // (The sim used to decode each segment after splitting and answer 400 "may not contain '/'"; kube never does.)
  it('%2f inside a name or a namespace splits the path as a slash does: no handler serves what it names (404)', async () => {
    const name = await send('GET', '/api/v1/namespaces/victim/configmaps/a%2fkeep');
    expect(name.status).toBe(404);
    const up = await send('DELETE', '/api/v1/namespaces/victim/configmaps/%2e%2e%2F%2e%2e');
    expect(up.status).toBe(404);
    const ns = await send('GET', '/api/v1/namespaces/default%2f..%2fvictim/secrets');
    expect(ns.status).toBe(404);
    expect(ns.text).not.toContain('c2VjcmV0');
    const create = await rawHttp(sim.url, 'POST', '/api/v1/namespaces/victim%2Fx/configmaps', { body: { metadata: { name: 'c' } } });
    expect(create.status).toBe(404);
    expect(sim.api.get(CONFIGMAPS, 'victim', 'c')).toBeUndefined();
    victimIntact();
  });

  it('a decoded % in a name is a 400 (%25 decodes to a name holding "%")', async () => {
    const r = await send('GET', '/api/v1/namespaces/victim/configmaps/a%25b');
    expect(r.json).toEqual(badRequest(`Name parameter invalid: "a%b": may not contain '%'`));
  });

  it('names that merely contain dots are ordinary names', async () => {
    const r = await send('GET', '/api/v1/namespaces/victim/configmaps/a..b');
    expect(r.status).toBe(404);
    expect(r.json.message).toBe('configmaps "a..b" not found');
    const ok = await send('GET', '/api/v1/namespaces/victim/configmaps/keep');
    expect(ok.status).toBe(200);
  });
});

describe('malformed escapes', () => {
  it('%ZZ in a path gets Go\'s plain-text 400 (the request line does not parse), not a 500', async () => {
    for (const path of ['/api/v1/namespaces/victim/configmaps/%ZZ', '/api/v1/namespaces/%ZZ/configmaps', '/api/v1/namespaces/victim/configmaps/a%2', '/apis/%zz']) {
      const r = await send('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.text).toBe('400 Bad Request');
    }
    victimIntact();
  });

  it('bytes that are not UTF-8 are a name like any other (Go decodes them leniently)', async () => {
    const r = await send('GET', '/api/v1/namespaces/victim/configmaps/%FF');
    expect(r.status).toBe(404);
  });
});
