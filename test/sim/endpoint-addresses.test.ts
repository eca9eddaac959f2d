// Endpoints and EndpointSlices refuse loopback, link-local and unspecified addresses with kube's 422 (Patroni's
// use_endpoints with 127.0.0.1 fails on a cluster, so it must fail on the sim); the Python client and kubectl judge.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { http, kubectlSim } from './sim-helpers.js';
import { nonSpecialIPErrors } from '../../src/sim/validation/endpoint-addresses.js';

const fx = kubectlSim({}, 'kwatch-endpoint-addresses-');
const EP = '/api/v1/namespaces/default/endpoints';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

const endpoints = (name: string, ip: string) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets: [{ addresses: [{ ip }], ports: [{ port: 5432, name: 'postgresql' }] }] });

describe('special addresses in Endpoints and EndpointSlices', () => {
  it('Endpoints with 127.0.0.1: kube\'s 422 on subsets[0].addresses[0].ip; a routable address is stored', async () => {
    const r = await http(fx.sim.url, EP, { method: 'POST', body: endpoints('patroni', '127.0.0.1') });
    expect(r.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: 'Endpoints "patroni" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      details: { name: 'patroni', kind: 'Endpoints', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)', field: 'subsets[0].addresses[0].ip' }] },
    });
    const notReady = await http(fx.sim.url, EP, { method: 'POST', body: { ...endpoints('nr', '10.1.2.3'), subsets: [{ notReadyAddresses: [{ ip: '169.254.169.254' }] }] } });
    expect(notReady.json.message).toBe('Endpoints "nr" is invalid: subsets[0].notReadyAddresses[0].ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)');
    expect((await http(fx.sim.url, EP, { method: 'POST', body: endpoints('ok', '10.1.2.3') })).status).toBe(201);
  });

  it('the Python client (as Patroni uses it) gets the 422', async () => {
    const script = `
import sys, json
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(config_file=sys.argv[1])
body = client.V1Endpoints(metadata=client.V1ObjectMeta(name="py"), subsets=[client.V1EndpointSubset(addresses=[client.V1EndpointAddress(ip="127.0.0.1")], ports=[client.CoreV1EndpointPort(port=5432)])])
try:
    client.CoreV1Api().create_namespaced_endpoints("default", body)
    print("created")
except ApiException as e:
    print(e.status, json.loads(e.body)["message"])
`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', script, fx.kubeconfig], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    });
    expect(out.trim()).toBe('422 Endpoints "py" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)');
  });

  it('EndpointSlices: IPv6 link-local and loopback refused at endpoints[i].addresses[j]; kubectl prints kube\'s message', async () => {
    const f = fx.file('slice.yaml', `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: s6
addressType: IPv6
endpoints:
- addresses: ["fd00::1", "fe80::1"]
- addresses: ["::1"]
ports:
- port: 80
`);
    const k = await fx.kubectl('create', '-f', f);
    expect(k.code).not.toBe(0);
    expect(k.stderr.trim()).toBe('The EndpointSlice "s6" is invalid: \n* endpoints[0].addresses[1]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)\n* endpoints[1].addresses[0]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)');
    const v4 = await http(fx.sim.url, SLICES, { method: 'POST', body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's4' }, addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.53'] }] } });
    expect(v4.json.message).toBe('EndpointSlice.discovery.k8s.io "s4" is invalid: endpoints[0].addresses[0]: Invalid value: "127.0.0.53": may not be in the loopback range (127.0.0.0/8, ::1/128)');
    const ok = await http(fx.sim.url, SLICES, { method: 'POST', body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'ok' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.7'] }] } });
    expect(ok.status).toBe(201);
  });

  it('classifies as Go\'s net.IP does (IPv4-mapped IPv6 counts as IPv4; unspecified; link-local multicast)', () => {
    const details = (ip: string) => nonSpecialIPErrors(ip, 'f').map((e) => e.detail);
    expect(details('::ffff:127.0.0.1')).toEqual(['may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    expect(details('0.0.0.0')).toEqual(['may not be unspecified (0.0.0.0)']);
    expect(details('::')).toEqual(['may not be unspecified (::)']);
    expect(details('224.0.0.251')).toEqual(['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
    expect(details('ff02::fb')).toEqual(['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
    expect(details('febf::1')).toEqual(['may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
    expect(details('fec0::1')).toEqual([]);
    expect(details('10.0.0.1')).toEqual([]);
    expect(details('nope')).toEqual(['must be a valid IP address']);
  });
});
