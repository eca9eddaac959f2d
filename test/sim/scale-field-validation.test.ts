// fieldValidation on the scale subresource: its body is an autoscaling/v1 Scale, decoded as strictly as any write
// (kube's update and patch handlers apply the directive to subresources too). Unknown fields are dropped in every
// mode; Warn (the default) answers a Warning header, Strict a 400, Ignore nothing; an unknown directive is kube's 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ pods: 0, nodes: 0, churn: 0 });
  sim.api.create({ group: 'apps', version: 'v1', resource: 'deployments' }, {
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
});
afterAll(() => sim.close());

const SCALE = '/apis/apps/v1/namespaces/default/deployments/web/scale';
const put = (query: string, replicas: number) => http(sim.url, SCALE + query, { method: 'PUT', body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas, bogus: 1 } } });
const patch = (query: string, replicas: number) => http(sim.url, SCALE + query, { method: 'PATCH', body: { spec: { replicas, bogus: 1 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
const replicas = async () => ((await http(sim.url, SCALE)).json as { spec: { replicas: number } }).spec.replicas;

describe('fieldValidation on …/scale', () => {
  it('Warn (unset): scaled, the unknown field dropped and named in a Warning header', async () => {
    for (const [write, n] of [[put, 2], [patch, 3]] as const) {
      const r = await write('', n);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.warning).toBe('299 - "unknown field \\"spec.bogus\\""');
      expect(r.json.spec).toEqual({ replicas: n });
    }
  });

  it('Strict: kube\'s 400, nothing scaled', async () => {
    const before = await replicas();
    const u = await put('?fieldValidation=Strict', 7);
    expect([u.status, u.json.reason, u.json.message]).toEqual([400, 'BadRequest', 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.bogus"']);
    const p = await patch('?fieldValidation=Strict', 7);
    expect([p.status, p.json.reason, p.json.message]).toEqual([400, 'BadRequest', 'strict decoding error: unknown field "spec.bogus"']);
    expect(await replicas()).toBe(before);
  });

  it('Ignore: scaled silently; an unknown directive is a 422 on the options', async () => {
    const r = await patch('?fieldValidation=Ignore', 4);
    expect([r.status, r.headers.warning, r.json.spec]).toEqual([200, undefined, { replicas: 4 }]);
    const bad = await put('?fieldValidation=Loud', 5);
    expect([bad.status, bad.json.reason]).toEqual([422, 'Invalid']);
    expect(bad.json.message).toContain('fieldValidation');
  });
});
