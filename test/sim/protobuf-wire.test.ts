// The sim answers protobuf as kube-apiserver does to a client that prefers it: gets and lists as `k8s\0` +
// runtime.Unknown, watches as length-prefixed WatchEvents. Judged by decoding with src/wire's decoder: the answer must
// stand for exactly the JSON the same request gets as JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { protobufToJson } from '../../src/wire/protobuf/to-json.js';
import { decodeWatchEvent, watchFrames } from '../../src/wire/protobuf/watch-event.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ pods: 3, nodes: 1, churn: 0 });
  sim.api.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'one', namespace: 'default', labels: { a: 'b' } }, data: { k: 'v' }, binaryData: { b: Buffer.from([0, 1, 2]).toString('base64') } });
  sim.api.create({ group: 'apps', version: 'v1', resource: 'deployments' }, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m' } } }] } } } });
});
afterAll(async () => { await sim?.close(); });

async function get(path: string, accept: string): Promise<{ type: string | null; body: Buffer; status: number }> {
  const res = await fetch(`${sim.url}${path}`, { headers: { Accept: accept } });
  return { type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()), status: res.status };
}

describe('sim: protobuf answers', () => {
  for (const path of ['/api/v1/namespaces/default/configmaps/one', '/api/v1/namespaces/default/configmaps', '/api/v1/pods', '/apis/apps/v1/namespaces/default/deployments/web', '/apis/apps/v1/deployments', '/api/v1/namespaces']) {
    it(`${path}: protobuf when preferred, decoding to the JSON answer`, async () => {
      const pb = await get(path, `${PROTOBUF}, application/json`);
      expect(pb.type).toBe(PROTOBUF);
      expect([...pb.body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
      const json = await get(path, 'application/json');
      expect(protobufToJson(pb.body)).toEqual(JSON.parse(json.body.toString('utf8')));
    });
  }

  it('kube negotiation: the first acceptable entry wins, so JSON first means JSON', async () => {
    expect((await get('/api/v1/pods', `application/json, ${PROTOBUF}`)).type).toMatch(/^application\/json/);
    expect((await get('/api/v1/pods', `${PROTOBUF}, application/json`)).type).toBe(PROTOBUF);
  });

  it('errors come as a protobuf Status', async () => {
    const pb = await get('/api/v1/namespaces/default/configmaps/missing', `${PROTOBUF}, application/json`);
    expect(pb.status).toBe(404);
    expect(pb.type).toBe(PROTOBUF);
    expect(protobufToJson(pb.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('a kind without a schema (custom resources, as in kube) answers JSON', async () => {
    const pb = await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', `${PROTOBUF}, application/json`);
    expect(pb.type).toMatch(/^application\/json/);
  });

  it('a watch is ;stream=watch framed WatchEvents whose objects decode to the JSON events', async () => {
    const list = JSON.parse((await get('/api/v1/namespaces/default/configmaps', 'application/json')).body.toString('utf8')) as { metadata: { resourceVersion: string } };
    const ac = new AbortController();
    const res = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`, { headers: { Accept: `${PROTOBUF};stream=watch, application/json` }, signal: ac.signal });
    expect(res.headers.get('content-type')).toBe(`${PROTOBUF};stream=watch`);
    sim.api.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'two', namespace: 'default' }, data: { x: 'y' } });
    const created = JSON.parse((await get('/api/v1/namespaces/default/configmaps/two', 'application/json')).body.toString('utf8')) as unknown;
    const body = res.body as unknown as AsyncIterable<Uint8Array>;
    for await (const batch of watchFrames(body, 1 << 20)) {
      expect(decodeWatchEvent(batch[0].frame)).toEqual({ type: 'ADDED', object: created });
      break;
    }
    ac.abort();
  });
});
