// CBOR behind --feature-gates CBORServingAndStorage=true: clients that prefer application/cbor get self-described
// CBOR (0xd9d9f7), watches as application/cbor-seq; clients that never ask (kubectl, the Python client) keep JSON;
// with the gate off a CBOR-only Accept gets kube's 406.
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { decodeFirst } from 'cborg';
import { decodeCbor } from '../../src/sim/cbor-wire.js';
import { http, kubectlWith } from './sim-helpers.js';
import { tempDir } from '../temp-dir.js';

const sims: SimServer[] = [];
afterAll(async () => { await Promise.all(sims.map((s) => s.close())); });

async function start(cbor: boolean): Promise<SimServer> {
  const s = await startSimServer({ featureGates: { CBORServingAndStorage: cbor } });
  sims.push(s);
  await http(s.url, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { k: 'v' } } });
  return s;
}

/** A GET whose body is kept as bytes. */
function raw(base: string, path: string, accept: string, untilBytes?: number): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => { chunks.push(c); size += c.length; if (untilBytes !== undefined && size >= untilBytes) { req.destroy(); done(); } });
      const done = () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) });
      res.on('end', done);
    });
    req.on('error', (e) => (untilBytes !== undefined ? undefined : reject(e)));
    req.end();
  });
}

/** Decodes a CBOR sequence item by item (cborg's decodeFirst), each self-described. */
function decodeSeq(bytes: Buffer): any[] {
  const tags: ((content: () => unknown) => unknown)[] = [];
  tags[55799] = (content) => content();
  const items: any[] = [];
  let rest: Uint8Array = bytes;
  while (rest.length > 0) {
    const [item, remainder] = decodeFirst(rest, { tags: tags as never });
    items.push(item);
    rest = remainder;
  }
  return items;
}

describe('CBOR (CBORServingAndStorage)', () => {
  it('gate on: get, list and errors in self-described CBOR for a client that prefers it', async () => {
    const s = await start(true);
    const one = await raw(s.url, '/api/v1/namespaces/default/configmaps/one', 'application/cbor');
    expect([one.status, one.type]).toEqual([200, 'application/cbor']);
    expect(one.body.subarray(0, 3).toString('hex')).toBe('d9d9f7');
    const json = (await http(s.url, '/api/v1/namespaces/default/configmaps/one')).json;
    expect(decodeCbor(one.body)).toEqual(json);
    const list = await raw(s.url, '/api/v1/namespaces/default/configmaps', 'application/cbor;q=1, application/json;q=0.9');
    expect((decodeCbor(list.body) as any).items.map((i: any) => i.metadata.name)).toEqual(['one']);
    const missing = await raw(s.url, '/api/v1/namespaces/default/configmaps/nope', 'application/cbor');
    expect(missing.status).toBe(404);
    expect(decodeCbor(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('gate on: a watch asked for as application/cbor-seq gets one CBOR item per event', async () => {
    const s = await start(true);
    const w = await raw(s.url, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&timeoutSeconds=1', 'application/cbor-seq');
    expect(w.type).toBe('application/cbor-seq');
    const events = decodeSeq(w.body);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'one']]);
  });

  it('gate on: kubectl and the Python client, which never ask for CBOR, keep getting JSON', async () => {
    const s = await start(true);
    const dir = tempDir('kwatch-cbor-');
    const kubeconfig = join(dir, 'kubeconfig');
    await s.writeKubeconfig(kubeconfig);
    const k = await kubectlWith(() => kubeconfig)('get', 'configmap', 'one', '-o', 'jsonpath={.data.k}');
    expect([k.stdout, k.stderr]).toEqual(['v', '']);
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', 'import sys\nfrom kubernetes import client, config\nconfig.load_kube_config(config_file=sys.argv[1])\nprint(client.CoreV1Api().read_namespaced_config_map("one", "default").data["k"])', kubeconfig], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    });
    expect(out.trim()).toBe('v');
    const plain = await raw(s.url, '/api/v1/namespaces/default/configmaps/one', 'application/json, */*');
    expect(plain.type).toBe('application/json');
  });

  it('gate off (the default): a CBOR-only Accept gets kube\'s 406; CBOR with a JSON fallback gets JSON', async () => {
    const s = await start(false);
    const r = await http(s.url, '/api/v1/namespaces/default/configmaps/one', { headers: { Accept: 'application/cbor' } });
    expect(r.status).toBe(406);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406, message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf' });
    const fallback = await raw(s.url, '/api/v1/namespaces/default/configmaps/one', 'application/cbor, application/json');
    expect([fallback.status, fallback.type]).toEqual([200, 'application/json']);
  });
});

describe('CBOR request bodies', () => {
  it('gate on: a create with a CBOR body is stored; gate off: kube\'s 415', async () => {
    const { encodeCbor } = await import('../../src/sim/cbor-wire.js');
    const body = encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-cbor' }, data: { x: 'y' } });
    const post = (s: SimServer) => new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      const req = request(`${s.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/cbor', Accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    const on = await start(true);
    const created = await post(on);
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body.toString()).data).toEqual({ x: 'y' });
    const off = await start(false);
    const refused = await post(off);
    expect(refused.status).toBe(415);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ reason: 'UnsupportedMediaType', code: 415,
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf' });
    // With the gate on, application/cbor is among the accepted types a 415 lists.
    const text = await http(on.url, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } });
    expect([text.status, text.json.message]).toEqual([415, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor']);
  });

  it('gate on: a CBOR body that does not decode is kube\'s 400, the object unrecognized', async () => {
    const on = await start(true);
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${on.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/cbor', Accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      // A map header promising one pair, then nothing: truncated.
      req.end(Buffer.from([0xd9, 0xd9, 0xf7, 0xa1]));
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(answer.body.message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): ./);
  });
});

describe('server-side apply in CBOR', () => {
  it('application/apply-patch+cbor applies with the gate on, 415 without it', async () => {
    const { encodeCbor } = await import('../../src/sim/cbor-wire.js');
    const body = encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: 'b' } });
    const patch = (s: SimServer) => new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = request(`${s.url}/api/v1/namespaces/default/configmaps/applied?fieldManager=cbor-client`, { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+cbor' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    const on = await patch(await start(true));
    expect([on.status, on.json.data, on.json.metadata.managedFields[0].manager]).toEqual([201, { a: 'b' }, 'cbor-client']);
    const off = await patch(await start(false));
    expect([off.status, off.json.reason]).toEqual([415, 'UnsupportedMediaType']);
  });
});

describe('patch types in CBOR', () => {
  // kube's PatchType has one CBOR form, apply-patch+cbor (endpoints/installer.go, customresource_handler.go): a
  // strategic merge patch in CBOR is a 415 whose message lists, in kube's order, what the handler takes.
  const patchWith = (s: SimServer, path: string, contentType: string) => new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = request(`${s.url}${path}`, { method: 'PATCH', headers: { 'Content-Type': contentType } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(Buffer.from([0xd9, 0xd9, 0xf7, 0xa1, 0x64, 0x64, 0x61, 0x74, 0x61, 0xa1, 0x61, 0x6b, 0x61, 0x77]));
  });

  it('application/strategic-merge-patch+cbor: kube\'s 415 listing apply-patch+cbor with the gate on', async () => {
    const on = await patchWith(await start(true), '/api/v1/namespaces/default/configmaps/one', 'application/strategic-merge-patch+cbor');
    expect(on).toEqual({ status: 415, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'UnsupportedMediaType', code: 415,
      message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor' } });
    const off = await patchWith(await start(false), '/api/v1/namespaces/default/configmaps/one', 'application/apply-patch+cbor');
    expect([off.status, off.json.message]).toEqual([415, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml']);
  });

  it('a custom resource lists no strategic merge patch', async () => {
    const s = await start(true);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    expect((await http(s.url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: crd })).status).toBe(201);
    expect((await http(s.url, '/apis/example.com/v1/namespaces/default/widgets', { method: 'POST', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } })).status).toBe(201);
    const smp = await patchWith(s, '/apis/example.com/v1/namespaces/default/widgets/w', 'application/strategic-merge-patch+json');
    expect([smp.status, smp.json.message]).toEqual([415, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor']);
  });
});

describe('a malformed apply-patch+cbor body', () => {
  it('is kube\'s 400 with the prefix its applyPatcher gives every apply unmarshal error, CBOR\'s too', async () => {
    const s = await start(true);
    const r = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = request(`${s.url}/api/v1/namespaces/default/configmaps/bad?fieldManager=m`, { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+cbor' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      req.end(Buffer.from([0xa1, 0x64, 0x6b]));
    });
    expect([r.status, r.json.reason]).toEqual([400, 'BadRequest']);
    expect(r.json.message).toMatch(/^error decoding YAML: /);
  });
});
