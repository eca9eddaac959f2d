// `--kube-version` and `--feature-gates`: /version, discovery and the WatchList gate as each release serves them
// (kube_features.go: WatchList on in 1.32, off in 1.33, on from 1.34); kubectl and the Python client as judges.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { KUBE_VERSIONS, parseFeatureGates, type FeatureGates, type KubeVersion } from '../../src/sim/kube-version.js';
import { http, kubectlWith, watch } from './sim-helpers.js';
import { tempDir } from '../temp-dir.js';

const sims: SimServer[] = [];
afterAll(async () => { await Promise.all(sims.map((s) => s.close())); });

async function sim(kubeVersion?: KubeVersion, featureGates?: Partial<FeatureGates>): Promise<{ sim: SimServer; kubectl: ReturnType<typeof kubectlWith>; kubeconfig: string }> {
  const s = await startSimServer({ kubeVersion, featureGates });
  sims.push(s);
  const kubeconfig = join(tempDir('kwatch-kube-versions-'), 'kubeconfig');
  await s.writeKubeconfig(kubeconfig);
  await http(s.url, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } } });
  return { sim: s, kubectl: kubectlWith(() => kubeconfig), kubeconfig };
}

const WATCH_LIST = '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5';

describe('served Kubernetes versions', () => {
  it('serves the newest (1.35) by default; kubectl version shows each release', async () => {
    const d = await sim();
    expect((await http(d.sim.url, '/version')).json).toMatchObject({ major: '1', minor: '35', gitVersion: 'v1.35.0' });
    for (const v of KUBE_VERSIONS) {
      const s = await sim(v);
      const info = (await http(s.sim.url, '/version')).json;
      expect(Object.keys(info)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
      // OpenAPI documents name the same release (their models are the same for every release: see the README).
      expect((await http(s.sim.url, '/openapi/v2')).json.info.version).toBe(`v${v}.0`);
      expect((await http(s.sim.url, '/openapi/v3/api/v1')).json.info.version).toBe(`v${v}.0`);
      const k = await s.kubectl('version', '-o', 'json');
      expect(JSON.parse(k.stdout).serverVersion.gitVersion).toBe(`v${v}.0`);
    }
  });

  it('discovery lists the kinds a release adds: ServiceCIDR/IPAddress from 1.33, resource.k8s.io/v1 and VolumeAttributesClass from 1.34', async () => {
    const has = async (s: SimServer, path: string, name: string) => ((await http(s.url, path)).json?.resources ?? []).some((r: { name: string }) => r.name === name);
    const v32 = (await sim('1.32')).sim;
    const v33 = (await sim('1.33')).sim;
    const v34 = await sim('1.34');
    expect(await has(v32, '/apis/networking.k8s.io/v1', 'servicecidrs')).toBe(false);
    expect(await has(v33, '/apis/networking.k8s.io/v1', 'servicecidrs')).toBe(true);
    expect(await has(v33, '/apis/networking.k8s.io/v1', 'ipaddresses')).toBe(true);
    expect((await http(v33.url, '/apis/resource.k8s.io/v1')).status).toBe(404);
    expect(await has(v34.sim, '/apis/resource.k8s.io/v1', 'resourceclaims')).toBe(true);
    expect(await has(v34.sim, '/apis/storage.k8s.io/v1', 'volumeattributesclasses')).toBe(true);
    // Stored and listed like any kind.
    const dc = await http(v34.sim.url, '/apis/resource.k8s.io/v1/deviceclasses', { method: 'POST', body: { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'gpu' }, spec: {} } });
    expect(dc.status).toBe(201);
    expect((await v34.kubectl('get', 'deviceclasses', '-o', 'name')).stdout.trim()).toBe('deviceclass.resource.k8s.io/gpu');
  });

  it('WatchList on (1.32, 1.34, 1.35): initial ADDED, then one BOOKMARK with k8s.io/initial-events-end; the list blueprint in 1.32 and 1.34+', async () => {
    for (const v of ['1.32', '1.34', '1.35'] as const) {
      const s = (await sim(v)).sim;
      const w = await watch(s.url, WATCH_LIST);
      const [added, bookmark] = await w.waitFor(2);
      w.close();
      expect(added.type).toBe('ADDED');
      expect(bookmark.type).toBe('BOOKMARK');
      expect(bookmark.object.kind).toBe('ConfigMap');
      expect(bookmark.object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
      expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(added.object.metadata.resourceVersion));
      expect(bookmark.object.metadata.annotations).toHaveProperty('kubernetes.io/initial-events-list-blueprint');
    }
  });

  it('WatchList off (1.33, or --feature-gates WatchList=false): sendInitialEvents refused with kube\'s 422 before any event; a legacy RV=0 watch gets no end bookmark', async () => {
    for (const s of [(await sim('1.33')).sim, (await sim('1.35', { WatchList: false })).sim]) {
      const r = await http(s.url, WATCH_LIST);
      expect(r.status).toBe(422);
      expect(r.json).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
        message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', field: 'sendInitialEvents' }] },
      });
      const legacy = await watch(s.url, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1');
      await legacy.ended;
      expect(legacy.events.map((e) => e.type)).toEqual(['ADDED']);
    }
    // And the gate turned on over 1.33's default streams again.
    const on = (await sim('1.33', { WatchList: true })).sim;
    const w = await watch(on.url, WATCH_LIST);
    const [, bookmark] = await w.waitFor(2);
    w.close();
    expect(bookmark.object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
    // 1.33 does not send the blueprint annotation.
    expect(bookmark.object.metadata.annotations).not.toHaveProperty('kubernetes.io/initial-events-list-blueprint');
  });

  it('resourceVersions are decimal integers without leading zeros (comparable, as 1.35 promises)', async () => {
    const s = (await sim('1.35')).sim;
    const list = await http(s.url, '/api/v1/configmaps');
    for (const rv of [list.json.metadata.resourceVersion, ...list.json.items.map((i: { metadata: { resourceVersion: string } }) => i.metadata.resourceVersion)]) expect(rv).toMatch(/^[1-9]\d*$/);
  });

  it('--feature-gates parses as kube-apiserver\'s flag does', () => {
    expect(parseFeatureGates('WatchList=false', '1.35')).toEqual({ WatchList: false, CBORServingAndStorage: false });
    expect(parseFeatureGates('', '1.33')).toEqual({ WatchList: false, CBORServingAndStorage: false });
    expect(() => parseFeatureGates('Bogus=true', '1.35')).toThrow('unrecognized feature gate: Bogus');
    expect(() => parseFeatureGates('WatchList=maybe', '1.35')).toThrow('invalid value of WatchList=maybe');
    expect(() => parseFeatureGates('WatchList', '1.35')).toThrow('missing bool value for WatchList');
    // Go's strconv.ParseBool spellings, as kube-apiserver's flag takes them (component-base featuregate Set)...
    expect(parseFeatureGates('WatchList=0,CBORServingAndStorage=T', '1.35')).toEqual({ WatchList: false, CBORServingAndStorage: true });
    expect(() => parseFeatureGates('WatchList=tRUE', '1.35')).toThrow('invalid value of WatchList=tRUE, err: strconv.ParseBool: parsing "tRUE": invalid syntax');
    // ...and every value is read before any name is checked.
    expect(() => parseFeatureGates('Bogus=true,WatchList=maybe', '1.35')).toThrow('invalid value of WatchList=maybe');
  });

  it('the Python client reads /version of the release served', async () => {
    const s = await sim('1.34');
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', 'import sys\nfrom kubernetes import client, config\nconfig.load_kube_config(config_file=sys.argv[1])\nprint(client.VersionApi().get_code().git_version)', s.kubeconfig], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    });
    expect(out.trim()).toBe('v1.34.0');
  });
});

describe('pods/resize (1.33+)', () => {
  it('changes only the containers\' resources; 1.32 has no such subresource', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'r' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } };
    const old = (await sim('1.32')).sim;
    await http(old.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: pod });
    expect((await http(old.url, '/api/v1/namespaces/default/pods/r/resize')).status).toBe(404);

    const s = await sim('1.35');
    expect((await http(s.sim.url, '/api/v1')).json.resources.some((r: { name: string }) => r.name === 'pods/resize')).toBe(true);
    await http(s.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: pod });
    const patch = { spec: { containers: [{ name: 'c', image: 'evil', resources: { requests: { cpu: '200m' }, limits: { cpu: '300m' } } }] } };
    const r = await http(s.sim.url, '/api/v1/namespaces/default/pods/r/resize', { method: 'PATCH', body: patch, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(r.status).toBe(200);
    expect(r.json.spec.containers[0].resources).toEqual({ requests: { cpu: '200m' }, limits: { cpu: '300m' } });
    // Only resources go through resize: the image stays.
    expect(r.json.spec.containers[0].image).toBe('nginx');
    const k = await s.kubectl('patch', 'pod', 'r', '--subresource', 'resize', '-p', '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"250m"},"limits":{"cpu":"300m"}}}]}}');
    expect(k.stderr).toBe('');
    expect(k.stdout.trim()).toBe('pod/r patched');
    expect((await http(s.sim.url, '/api/v1/namespaces/default/pods/r/resize')).json.spec.containers[0].resources.requests.cpu).toBe('250m');
  });
});

describe('ListOptions validation', () => {
  it('ListOptions errors as kube\'s ValidateListOptions gives them: all at once, each on its own field', async () => {
    // validation.go validateWatchOptions: without resourceVersionMatch, the missing match is the match's error, and
    // the gate's is sendInitialEvents'; both in one 422.
    const s = (await sim('1.33')).sim;
    const both = await http(s.url, '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true');
    expect(both.status).toBe(422);
    expect(both.json.message).toBe('ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]');
    expect(both.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['resourceVersionMatch', 'sendInitialEvents']);
    // A continue token with a match is the match's error (kube has no "sendInitialEvents … continue" message).
    const on = (await sim('1.35')).sim;
    const cont = await http(on.url, '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=abc');
    expect([cont.status, cont.json.message]).toEqual([422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided']);
    // An Exact match on a watch without sendInitialEvents: forbidden and unsupported.
    const exact = await http(on.url, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersionMatch=Exact&resourceVersion=1');
    expect(exact.json.message).toBe('ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]');
  });
});
