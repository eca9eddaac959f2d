// Real clients behind kwatch's endpoint, driven as controllers drive them: @kubernetes/client-node's informer and the
// Python client from Debian's python3-kubernetes (a watch, writes, leader election on a ConfigMap lock), against the
// embedded API server as the target, under intercept and overlay.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { writeEndpointKubeconfig } from '../../src/endpoint/endpoint-kubeconfig.js';
import { startEndpoint, type Endpoint, type EndpointWriteMode } from '../../src/endpoint/endpoint-server.js';
import { Fork } from '../../src/endpoint/fork.js';
import { parseInjectSpec, type InjectFault } from '../../src/faults/inject-spec.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { until } from '../sim/sim-helpers.js';

const PYTHON = '/usr/bin/python3';
const hasRubyClient = await new Promise<boolean>((resolve) => execFile('ruby', ['-e', 'require "kubeclient"'], (err) => resolve(!err)));
const hasPythonClient = await new Promise<boolean>((resolve) => execFile(PYTHON, ['-c', 'import kubernetes'], (err) => resolve(!err)));

let sim: SimServer;
let upstream: Connection;
let dir: string;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0 });
  upstream = connectionFromUrl(sim.url);
  dir = mkdtempSync(join(tmpdir(), 'kwatch-endpoint-clients-'));
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An endpoint on the sim in `mode`, its kubeconfig written; records collected. */
async function endpointFor(mode: EndpointWriteMode, name: string, faults: InjectFault[] = []): Promise<{ endpoint: Endpoint; kubeconfig: string; records: TraceRecord[]; close(): Promise<void> }> {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const fork = mode === 'overlay' ? new Fork({ upstream, tracer, maxObjects: 10_000, notice: () => {} }) : undefined;
  const endpoint = await startEndpoint({ upstream, mode, fork, tracer, loopThreshold: 5, stallAfterMs: 300_000, faults });
  endpoint.watchFaults.start();
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  await writeEndpointKubeconfig(kubeconfig, { server: endpoint.url, token: endpoint.token, namespace: 'default' });
  return { endpoint, kubeconfig, records, close: () => endpoint.close() };
}

function python(script: string, kubeconfig: string, timeoutMs = 90_000): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `script-${Math.random().toString(36).slice(2)}.py`);
  writeFileSync(file, script);
  return new Promise((resolve) => execFile(PYTHON, [file], { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: timeoutMs }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })));
}

describe('@kubernetes/client-node through the endpoint', () => {
  it('overlay: its informer lists, watches and sees the controller\'s own write; the target never gets it', { timeout: 120_000 }, async () => {
    const e = await endpointFor('overlay', 'client-node');
    try {
      const k8s = await import('@kubernetes/client-node');
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(e.kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
      const added: string[] = [];
      informer.on('add', (o: { metadata?: { name?: string } }) => added.push(o.metadata?.name ?? ''));
      await informer.start();
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'from-client-node' }, data: { a: 'b' } } });
      await until(() => added.includes('from-client-node'), 10_000);
      await informer.stop();
      expect(e.records).toContainEqual(expect.objectContaining({ stage: 'endpoint', op: 'write', key: 'default/from-client-node', mode: 'overlay', code: 201 }));
      expect(e.records).toContainEqual(expect.objectContaining({ stage: 'endpoint', op: 'watch', type: 'ADDED', key: 'default/from-client-node' }));
      expect(sim.api.get({ group: '', version: 'v1', resource: 'configmaps' }, 'default', 'from-client-node')).toBeUndefined();
    } finally {
      await e.close();
    }
  });
});

describe.skipIf(!hasPythonClient)('the Python client (python3-kubernetes) through the endpoint', () => {
  const watchAndCreate = `
import json, threading
from kubernetes import client, config, watch
config.load_kube_config()
v1 = client.CoreV1Api()
rv = v1.list_namespaced_config_map("default").metadata.resource_version
w = watch.Watch()
seen = []
def create():
    client.CoreV1Api().create_namespaced_config_map("default", {"metadata": {"name": "from-python"}, "data": {"a": "b"}})
threading.Timer(0.5, create).start()
for ev in w.stream(v1.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=10):
    seen.append((ev["type"], ev["object"].metadata.name))
    if ev["object"].metadata.name == "from-python":
        w.stop()
print(json.dumps(seen))
`;

  it('overlay: a watch sees the create it made through the fork', { timeout: 120_000 }, async () => {
    const e = await endpointFor('overlay', 'python-overlay');
    try {
      const r = await python(watchAndCreate, e.kubeconfig);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toContainEqual(['ADDED', 'from-python']);
      const http = e.records.filter((x) => x.op === 'http');
      expect(http[0]).toMatchObject({ client: 'OpenAPI-Generator' });
      expect(e.records).toContainEqual(expect.objectContaining({ op: 'write', key: 'default/from-python', code: 201, mode: 'overlay' }));
    } finally {
      await e.close();
    }
  });

  it('leader election on a ConfigMap lock becomes leader under intercept and under overlay', { timeout: 120_000 }, async () => {
    const elect = `
import uuid, os, sys
from kubernetes import config
from kubernetes.leaderelection import leaderelection, electionconfig
from kubernetes.leaderelection.resourcelock.configmaplock import ConfigMapLock
config.load_kube_config()
def lead():
    print("I am leader", flush=True)
    os._exit(0)
cfg = electionconfig.Config(ConfigMapLock("kwatch-lock", "default", str(uuid.uuid4())), lease_duration=4, renew_deadline=3, retry_period=1, onstarted_leading=lead, onstopped_leading=None)
leaderelection.LeaderElection(cfg).run()
sys.exit(3)
`;
    for (const mode of ['intercept', 'overlay'] as const) {
      const e = await endpointFor(mode, `python-elect-${mode}`);
      try {
        const r = await python(elect, e.kubeconfig);
        expect(r.stdout, `${mode}: ${r.stderr}`).toMatch(/I am leader/);
        expect(e.records).toContainEqual(expect.objectContaining({ op: 'write', verb: 'create', key: 'default/kwatch-lock', mode, code: 201 }));
      } finally {
        await e.close();
      }
    }
    expect(sim.api.get({ group: '', version: 'v1', resource: 'configmaps' }, 'default', 'kwatch-lock')).toBeUndefined();
  });
});

describe.skipIf(!hasRubyClient)('the Ruby client (Debian\'s ruby-kubeclient) through the endpoint', () => {
  // Lists, creates without a field manager, watches from the list's resourceVersion; on 410 Gone lists again.
  const script = `
require 'kubeclient'
cfg = Kubeclient::Config.read(ENV['KUBECONFIG'])
ctx = cfg.context
c = Kubeclient::Client.new(ctx.api_endpoint + '/api', 'v1', ssl_options: ctx.ssl_options, auth_options: ctx.auth_options)
rv = c.get_config_maps(namespace: 'default').resourceVersion
c.create_config_map(Kubeclient::Resource.new(metadata: { name: 'from-ruby', namespace: 'default' }, data: { a: 'b' }))
c.watch_config_maps(namespace: 'default', resource_version: rv) do |notice|
  if notice.type == 'ERROR' && notice.object.code == 410
    puts "expired"
    break
  end
end
puts "relisted #{c.get_config_maps(namespace: 'default').size}"
`;

  it('apply: its create without fieldManager is stored with its own manager; a 410 on its watch makes it list again', { timeout: 120_000 }, async () => {
    const e = await endpointFor('apply', 'ruby-apply', [parseInjectSpec('expire@1s')]);
    try {
      const file = join(dir, 'client.rb');
      writeFileSync(file, script);
      const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => execFile('ruby', [file], { env: { ...process.env, KUBECONFIG: e.kubeconfig }, timeout: 90_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr })));
      expect(r.stdout, r.stderr).toMatch(/^expired\nrelisted \d+$/m);
      expect(e.records).toContainEqual(expect.objectContaining({ op: 'write', verb: 'create', key: 'default/from-ruby', mode: 'apply', code: 201 }));
      expect(e.records).toContainEqual(expect.objectContaining({ op: 'watch', event: 'close', reason: '410' }));
      const stored = sim.api.get({ group: '', version: 'v1', resource: 'configmaps' }, 'default', 'from-ruby');
      const managers = (stored?.metadata.managedFields as { manager: string }[] | undefined)?.map((f) => f.manager);
      expect(managers).toHaveLength(1);
      expect(managers?.[0]).not.toBe('kwatch');
    } finally {
      await e.close();
    }
  });
});
