// Conformance: kubectl's typed `create` commands send their objects as protobuf, and the sim must store exactly what
// kubectl meant. The oracle is kubectl itself: `--dry-run=client -o json` is its own JSON rendering of the object.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { KUBECTL, kubectlSim, until } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-kubectl-create-');
const kubectl = fx.kubectl;
const file = fx.file;

// A throwaway self-signed P-256 certificate and key, only for `create secret tls` (kubectl checks that they match).
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBgzCCASmgAwIBAgIUZyCBDU9BLlEARYcW+JR6W+feTT0wCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLa3dhdGNoLXRlc3QwIBcNMjYxMTI2MDE0NzAzWhgPMjEyNjEx
MDIwMTQ3MDNaMBYxFDASBgNVBAMMC2t3YXRjaC10ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAExnOjMyCleHPj4mFOD2dOStfenheWs7StgEhj0jVLNa4+XCmL
i/O4GLUiFrIeHIuiC1btU1UEPvqOxa5FphYzZaNTMFEwHQYDVR0OBBYEFOD/+cyF
NuCyPINBpfudLVTT7vUQMB8GA1UdIwQYMBaAFOD/+cyFNuCyPINBpfudLVTT7vUQ
MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIhALpYd1GZxFMqV0+N
VQ4UKQkz2Sog7uTHaea5xBEqVuiCAiASthWRXPvQiDpQaBDA19ti78U1Igmood3q
lV1Oi/mWIQ==
-----END CERTIFICATE-----
`;
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0Q6KdbMt8A17tcwv
vHJvjh9AblF7uDe4APMYxRjKrmWhRANCAATGc6MzIKV4c+PiYU4PZ05K196eF5az
tK2ASGPSNUs1rj5cKYuL87gYtSIWsh4ci6ILVu1TVQQ++o7FrkWmFjNl
-----END PRIVATE KEY-----
`;

/** Each create command (run with `-n demo`) and the object it makes. */
function createCommands(): { ref: string; args: string[] }[] {
  const text = file('greeting.txt', 'hello\nworld\n');
  const binary = file('blob.bin', Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80]));
  return [
    { ref: 'configmap/cm1', args: ['configmap', 'cm1', '--from-literal=a=b', `--from-file=${text}`, `--from-file=${binary}`] },
    { ref: 'secret/s1', args: ['secret', 'generic', 's1', '--from-literal=p=q'] },
    { ref: 'secret/t1', args: ['secret', 'tls', 't1', `--cert=${file('tls.crt', TLS_CERT)}`, `--key=${file('tls.key', TLS_KEY)}`] },
    { ref: 'secret/d1', args: ['secret', 'docker-registry', 'd1', '--docker-server=reg.example.com', '--docker-username=u', '--docker-password=p', '--docker-email=u@example.com'] },
    { ref: 'deployment.apps/web', args: ['deployment', 'web', '--image=nginx', '--replicas=3', '--port=80'] },
    { ref: 'deployment.apps/multi', args: ['deployment', 'multi', '--image=a', '--image=b'] },
    { ref: 'service/c1', args: ['service', 'clusterip', 'c1', '--tcp=5678:8080'] },
    { ref: 'service/n1', args: ['service', 'nodeport', 'n1', '--tcp=80:8080', '--node-port=30080'] },
    { ref: 'service/l1', args: ['service', 'loadbalancer', 'l1', '--tcp=80:8080'] },
    { ref: 'service/e1', args: ['service', 'externalname', 'e1', '--external-name=bar.example.com'] },
  ];
}

/** Asserts every field of `expected` is in `actual` with the same value; a null creationTimestamp is the server's to set. */
function expectContains(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    expect(actual, path).toBeTypeOf('object');
    for (const [k, v] of Object.entries(expected)) {
      if (k === 'creationTimestamp' && v === null && path.endsWith('.metadata') && !path.includes('template')) continue;
      expect(actual, `${path} has ${k}`).toHaveProperty([k]);
      expectContains((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    }
  } else if (Array.isArray(expected)) {
    expect(actual, path).toHaveLength(expected.length);
    expected.forEach((v, i) => expectContains((actual as unknown[])[i], v, `${path}[${i}]`));
  } else {
    expect(actual, path).toEqual(expected);
  }
}

function expectServerMetadata(obj: { metadata: Record<string, unknown> }, namespace?: string): void {
  expect(obj.metadata).toMatchObject({
    uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    resourceVersion: expect.stringMatching(/^\d+$/),
    creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    ...(namespace ? { namespace } : {}),
  });
}

describe('kubectl create (protobuf request bodies) against the sim', () => {
  it('create namespace stores what kubectl sends, plus uid, resourceVersion and creationTimestamp', async () => {
    const dry = await kubectl('create', 'namespace', 'demo', '--dry-run=client', '-o', 'json');
    const created = await kubectl('create', 'namespace', 'demo');
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('namespace/demo created');
    const stored = JSON.parse((await kubectl('get', 'namespace', 'demo', '-o', 'json')).stdout);
    expectContains(stored, JSON.parse(dry.stdout), 'namespace/demo');
    expectServerMetadata(stored);
  });

  it('create configmap, secret generic|tls|docker-registry, deployment and service clusterip|nodeport|loadbalancer|externalname; a watch sees them', async () => {
    const watcher = spawn(KUBECTL, ['--kubeconfig', fx.kubeconfig, 'get', 'services', '-n', 'demo', '-w', '--output-watch-events', '--no-headers']);
    let watched = '';
    watcher.stdout.on('data', (d: Buffer) => { watched += d.toString(); });
    try {
      await until(() => fx.sim.requests().some((q) => q.verb === 'watch' && q.url.startsWith('/api/v1/namespaces/demo/services')), 10_000);
      const commands = createCommands();
      const results = await Promise.all(commands.map(async ({ args }) => ({
        dry: await kubectl('create', ...args, '-n', 'demo', '--dry-run=client', '-o', 'json'),
        created: await kubectl('create', ...args, '-n', 'demo'),
      })));
      for (const [i, { created, dry }] of results.entries()) {
        expect(created.stderr, commands[i].ref).toBe('');
        expect(created.stdout.trim()).toBe(`${commands[i].ref} created`);
        expect(dry.code).toBe(0);
      }
      const stored = JSON.parse((await kubectl('get', '-n', 'demo', ...commands.map((c) => c.ref), '-o', 'json')).stdout) as { items: { metadata: Record<string, unknown> }[] };
      expect(stored.items).toHaveLength(commands.length);
      stored.items.forEach((obj, i) => {
        expectContains(obj, JSON.parse(results[i].dry.stdout), commands[i].ref);
        expectServerMetadata(obj, 'demo');
      });
      // Spot checks of what the oracle comparison covers: bytes, maps, IntOrString, pointers.
      const [cm, , tls, , web] = stored.items as any[];
      expect(cm.binaryData).toEqual({ 'blob.bin': 'AAEC/v+A' });
      expect(cm.data).toEqual({ a: 'b', 'greeting.txt': 'hello\nworld\n' });
      expect(Buffer.from(tls.data['tls.crt'], 'base64').toString()).toBe(TLS_CERT);
      expect(web.spec).toMatchObject({ replicas: 3, template: { spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] } } });

      await until(() => watched.trim().split('\n').length >= 4, 10_000);
      const events = watched.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).join(' ')).sort();
      expect(events).toEqual(['ADDED c1', 'ADDED e1', 'ADDED l1', 'ADDED n1']);
    } finally {
      watcher.kill();
    }
  });
});
