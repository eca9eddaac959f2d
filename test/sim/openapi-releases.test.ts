// /openapi/v2 and /openapi/v3 as each --kube-version serves them: each release's own definitions (1.32 and 1.33 from
// their own specs, 1.34 and 1.35 from v1.34.0's) and kinds, and info.version naming the release.
import { afterAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import type { KubeVersion } from '../../src/sim/kube-version.js';

const sims = new Map<KubeVersion, SimServer>();
afterAll(async () => { await Promise.all([...sims.values()].map((s) => s.close())); });

async function sim(v: KubeVersion): Promise<SimServer> {
  let s = sims.get(v);
  if (!s) { s = await startSimServer({ kubeVersion: v, pods: 0, nodes: 0, churn: 0 }); sims.set(v, s); }
  return s;
}

async function getJson(v: KubeVersion, path: string): Promise<any> {
  const res = await fetch(`${(await sim(v)).url}${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

const props = (schema: { properties?: Record<string, unknown> } | undefined) => Object.keys(schema?.properties ?? {});

describe('OpenAPI per --kube-version', () => {
  it('v3 core/v1 carries each release\'s fields: Container.restartPolicyRules from 1.34, Lifecycle.stopSignal from 1.33', async () => {
    const schemas = async (v: KubeVersion) => (await getJson(v, '/openapi/v3/api/v1')).components.schemas as Record<string, { properties?: Record<string, unknown> }>;
    const s32 = await schemas('1.32'), s33 = await schemas('1.33'), s35 = await schemas('1.35');
    expect(props(s32['io.k8s.api.core.v1.Lifecycle'])).not.toContain('stopSignal');
    expect(props(s33['io.k8s.api.core.v1.Lifecycle'])).toContain('stopSignal');
    expect(props(s33['io.k8s.api.core.v1.Container'])).not.toContain('restartPolicyRules');
    expect(props(s35['io.k8s.api.core.v1.Container'])).toContain('restartPolicyRules');
  });

  it('v2 has the release\'s kinds and info.version', async () => {
    const d32 = await getJson('1.32', '/openapi/v2');
    const d35 = await getJson('1.35', '/openapi/v2');
    expect(d32.info.version).toBe('v1.32.0');
    expect(d35.info.version).toBe('v1.35.0');
    expect(Object.keys(d32.definitions)).not.toContain('io.k8s.api.networking.v1.ServiceCIDR');
    expect(Object.keys(d35.definitions)).toContain('io.k8s.api.networking.v1.ServiceCIDR');
    expect(Object.keys(d32.paths).some((p) => p.startsWith('/apis/resource.k8s.io/v1/'))).toBe(false);
    expect(Object.keys(d35.paths)).toContain('/apis/resource.k8s.io/v1/resourceclaims');
    // A field 1.33 added to a kind 1.32 serves is absent from 1.32's v2 definitions too.
    expect(props(d32.definitions['io.k8s.api.core.v1.Lifecycle'])).not.toContain('stopSignal');
    expect(props(d35.definitions['io.k8s.api.core.v1.Lifecycle'])).toContain('stopSignal');
  });

  it('field validation reads the same release\'s definitions: 1.32 does not know Lifecycle.stopSignal, 1.33 does', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stop' }, spec: { containers: [{ name: 'c', image: 'i', lifecycle: { stopSignal: 'SIGTERM' } }], os: { name: 'linux' } } };
    const create = async (v: KubeVersion) => fetch(`${(await sim(v)).url}/api/v1/namespaces/default/pods?fieldValidation=Strict`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pod) });
    const old = await create('1.32');
    expect(old.status).toBe(400);
    expect(((await old.json()) as { message: string }).message).toBe('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].lifecycle.stopSignal"');
    const newer = await create('1.33');
    expect(newer.status, await newer.clone().text()).toBe(201);
  });
});
