// The control endpoint is guarded: a per-run token, only the sim's own Host (and no foreign Origin) on any request,
// and fault bodies checked before anything is applied — so a web page can neither inject faults nor read the cluster.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlTokenFile } from '../../src/sim/kubeconfig.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { request as httpsRequest } from 'node:https';
import { controlHttp, http, rawHttp } from './sim-helpers.js';
import { tempDir } from '../temp-dir.js';

let sim: SimServer;
let port: number;
beforeAll(async () => {
  sim = await startSimServer();
  port = Number(new URL(sim.url).port);
});
afterAll(() => sim.close());

const faultsState = async () => (await controlHttp(sim, '/_kwatch/state')).json.faults;

describe('the control token', () => {
  it('refuses control requests without the token or with a wrong one (401), and applies nothing', async () => {
    const none = await http(sim.url, '/_kwatch/faults', { method: 'POST', body: { fail: { code: 500 } } });
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const wrong = await http(sim.url, '/_kwatch/faults', { method: 'POST', body: { fail: { code: 500 } }, headers: { Authorization: 'Bearer not-the-token' } });
    expect(wrong.status).toBe(401);
    expect((await http(sim.url, '/_kwatch/state')).status).toBe(401);
    expect((await http(sim.url, '/_kwatch/compact', { method: 'POST' })).status).toBe(401);
    expect((await faultsState()).fail).toEqual([]);
    expect((await http(sim.url, '/api/v1/namespaces')).status).toBe(200);
  });

  it('accepts the token, which is new for every run and written beside the kubeconfig (0600)', async () => {
    expect((await controlHttp(sim, '/_kwatch/state')).status).toBe(200);
    const other = await startSimServer();
    try {
      expect(other.controlToken).not.toBe(sim.controlToken);
      expect(other.controlToken.length).toBeGreaterThanOrEqual(32);
      const kubeconfig = join(tempDir('kwatch-control-'), 'kubeconfig');
      await other.writeKubeconfig(kubeconfig);
      const file = controlTokenFile(kubeconfig);
      expect(readFileSync(file, 'utf8').trim()).toBe(other.controlToken);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(kubeconfig, 'utf8')).not.toContain(other.controlToken);
    } finally {
      await other.close();
    }
  });
});

describe('Host and Origin', () => {
  it('refuses a Host that is not the sim\'s own address (DNS rebinding), on the API and the control endpoint', async () => {
    for (const host of ['attacker.example', `attacker.example:${port}`, `localhost.attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, `user@127.0.0.1:${port}`]) {
      const api = await http(sim.url, '/api/v1/secrets', { headers: { Host: host } });
      expect(api.status, host).toBe(403);
      expect(api.json.message).toContain('is not this server\'s address');
      expect((await http(sim.url, '/_kwatch/state', { headers: { Host: host, Authorization: `Bearer ${sim.controlToken}` } })).status, host).toBe(403);
    }
  });

  it('accepts the sim\'s addresses: IP literals and localhost', async () => {
    // Any port: a proxy or an ssh tunnel in front of the sim changes it.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `127.0.0.1:${port + 1}`, '[::1]:8001', '10.0.0.7']) {
      expect((await http(sim.url, '/api/v1/namespaces', { headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('refuses requests sent by a web page of another origin, and accepts its own', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-a-page' } };
    const page = await http(sim.url, '/api/v1/namespaces/default/configmaps', { method: 'POST', body, headers: { Origin: 'https://attacker.example' } });
    expect(page.status).toBe(403);
    expect((await http(sim.url, '/api/v1/namespaces/default/configmaps', { headers: { Origin: 'null' } })).status).toBe(403);
    expect((await http(sim.url, '/api/v1/namespaces/default/configmaps/from-a-page')).status).toBe(404);
    expect((await http(sim.url, '/api/v1/namespaces/default/configmaps', { headers: { Origin: `http://127.0.0.1:${port}` } })).status).toBe(200);
  });

  it('accepts only its own origin: a page on another loopback port or scheme may not write', async () => {
    const post = (origin: string, name: string) =>
      http(sim.url, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }, headers: { Origin: origin } });
    for (const [i, origin] of [`http://127.0.0.1:9`, `http://localhost:${port + 1}`, `http://[::1]:${port + 1}`, `https://127.0.0.1:${port}`, `http://10.0.0.7:${port}`].entries()) {
      expect((await post(origin, `foreign-${i}`)).status, origin).toBe(403);
      expect((await http(sim.url, `/api/v1/namespaces/default/configmaps/foreign-${i}`)).status, origin).toBe(404);
    }
    for (const [i, origin] of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, `HTTP://LOCALHOST:${port}`].entries()) {
      expect((await post(origin, `own-${i}`)).status, origin).toBe(201);
    }
  });
});

describe('an absolute-form request target', () => {
  it('reaches the control endpoint only with the token, as the router routes it', async () => {
    const fault = { fail: { code: 500 } };
    const absolute = `http://127.0.0.1:${port}/_kwatch/faults`;
    const none = await rawHttp(sim.url, 'POST', absolute, { body: fault });
    expect(none.status).toBe(401);
    expect((await rawHttp(sim.url, 'GET', `http://127.0.0.1:${port}/_kwatch/state`)).status).toBe(401);
    expect((await rawHttp(sim.url, 'POST', `http://localhost:${port}/_kwatch/compact`)).status).toBe(401);
    expect((await faultsState()).fail).toEqual([]);
    // With the token, the same target is the control endpoint (so the 401 above was the guard, not a 404).
    const state = await rawHttp(sim.url, 'GET', `http://127.0.0.1:${port}/_kwatch/state`, { headers: { Authorization: `Bearer ${sim.controlToken}` } });
    expect(state.status).toBe(200);
    expect(state.json.faults.fail).toEqual([]);
  });

  it('that names a host other than the sim (it overrides Host) is refused', async () => {
    for (const target of ['http://x/_kwatch/faults', 'http://attacker.example/api/v1/secrets']) {
      const res = await rawHttp(sim.url, 'POST', target, { body: { fail: { code: 500 } }, headers: { Authorization: `Bearer ${sim.controlToken}` } });
      expect(res.status, target).toBe(403);
    }
    expect((await faultsState()).fail).toEqual([]);
  });

  it('under --tls --users, with neither a client certificate nor the token: 401, nothing applied', async () => {
    const secure = await startSimServer({ tls: true, users: true });
    try {
      const { hostname, port: p } = new URL(secure.url);
      const send = (path: string, headers: Record<string, string> = {}) =>
        new Promise<number>((resolve, reject) => {
          const req = httpsRequest({ host: hostname, port: p, path, method: 'POST', ca: secure.credentials!.caPem, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end(JSON.stringify({ fail: { code: 500 } }));
        });
      expect(await send(`https://127.0.0.1:${p}/_kwatch/faults`)).toBe(401);
      expect(await send(`http://x/_kwatch/faults`)).toBe(403);
      expect(secure.faults.state().fail).toEqual([]);
      expect(await send(`https://127.0.0.1:${p}/_kwatch/faults`, { Authorization: `Bearer ${secure.controlToken}` })).toBe(200);
      expect(secure.faults.state().fail).toHaveLength(1);
    } finally {
      await secure.close();
    }
  });
});

describe('fault bodies', () => {
  const bad: [string, unknown][] = [
    ['an HTTP code of 999', { fail: { code: 999 } }],
    ['an HTTP code that is not an error', { fail: { code: 200 } }],
    ['a fail rule without a code', { fail: { count: 2 } }],
    ['null', null],
    ['an array', [{ fail: { code: 500 } }]],
    ['a delay of 1e12 ms', { delay: { ms: 1e12 } }],
    ['a negative delay', { delay: { ms: -5 } }],
    ['a delay that is not a number', { delay: { ms: '200' } }],
    ['an unknown verb', { fail: { code: 500, verb: 'lsit' } }],
    ['an unknown field', { fial: { code: 500 } }],
    ['a fractional count', { fail: { code: 500, count: 1.5 } }],
    ['a non-boolean reset', { reset: 'yes' }],
    ['dropWatches as a number', { dropWatches: 3 }],
    ['dropWatchesEvery every 1 ms', { dropWatchesEvery: { ms: 1 } }],
    ['cutWatch with a count of 0', { cutWatch: { count: 0 } }],
  ];
  for (const [what, body] of bad) {
    it(`answers 400 for ${what}, and applies nothing`, async () => {
      const before = await faultsState();
      const res = await controlHttp(sim, '/_kwatch/faults', { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      expect(await faultsState()).toEqual(before);
    });
  }

  it('names the field at fault', async () => {
    const res = await controlHttp(sim, '/_kwatch/faults', { method: 'POST', body: { reset: true, fail: [{ code: 429 }, { code: 999 }] } });
    expect(res.json.message).toBe('fail[1].code: must be an integer from 400 to 599 (got 999)');
  });

  it('still applies a well-formed request', async () => {
    const res = await controlHttp(sim, '/_kwatch/faults', { method: 'POST', body: { reset: true, fail: { code: 503, count: 2, verb: ['list', 'watch'], path: '/pods' }, delay: { ms: 0, count: 1 } } });
    expect(res.status).toBe(200);
    expect(res.json.fail).toEqual([{ code: 503, count: 2, verb: ['list', 'watch'], path: '/pods', retryAfterSeconds: 0 }]);
    await controlHttp(sim, '/_kwatch/faults', { method: 'POST', body: { reset: true } });
  });
});
