// kwatch's own --wire protobuf: lists and watches asked for as client-go's protobuf clients ask, read with src/wire's
// decoder where the sim answers protobuf, as JSON where it answers JSON (kinds without a schema, custom resources),
// and errors sent as a protobuf Status read as that Status.
import { afterAll, describe, expect, it } from 'vitest';
import { StatusError } from '../../src/informer/errors.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { HttpListerWatcher, type ListWatchTarget, type WireFormat } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

const sims: SimServer[] = [];
const conns: Connection[] = [];
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  await Promise.all(sims.map((s) => s.close()));
});

const CONFIGMAPS: ListWatchTarget = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, namespace: 'default' };

async function setup() {
  const sim = await startSimServer({ pods: 2, nodes: 2, churn: 0 });
  sims.push(sim);
  for (const name of ['one', 'two']) sim.api.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name, namespace: 'default' }, data: { k: name } });
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((e) => records.push(e));
  const conn = connectionFromUrl(sim.url, { tracer });
  conns.push(conn);
  const lw = (wire: WireFormat, target: ListWatchTarget = CONFIGMAPS) => new HttpListerWatcher(conn, target, { wire });
  return { sim, lw, records };
}

const lastType = (records: TraceRecord[]) => (records.filter((r) => r.stage === 'http' && r.op === 'response').at(-1) as { contentType?: string } | undefined)?.contentType;

describe('--wire protobuf against the sim', () => {
  it('a list comes in protobuf, with the same page as in JSON, and the http record says so', async () => {
    const { lw, records } = await setup();
    const page = await lw('protobuf').list({});
    expect(lastType(records)).toBe('application/vnd.kubernetes.protobuf');
    const json = await lw('json').list({});
    expect(lastType(records)).toBeUndefined();
    expect(page.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['one', 'two']));
    expect({ ...page, bytes: 0 }).toEqual({ ...json, bytes: 0 });
    expect(page.bytes).toBeGreaterThan(0);
    const pods = await lw('protobuf', { group: '', version: 'v1', resource: 'pods', namespaced: true }).list({});
    expect({ ...pods, bytes: 0 }).toEqual({ ...(await lw('json', { group: '', version: 'v1', resource: 'pods', namespaced: true }).list({})), bytes: 0 });
  });

  it('a watch comes as ;stream=watch frames, each event decoded', async () => {
    const { sim, lw, records } = await setup();
    const page = await lw('protobuf').list({});
    const stream = await lw('protobuf').watch({ resourceVersion: page.metadata.resourceVersion, allowWatchBookmarks: true });
    expect(lastType(records)).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    sim.api.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'three', namespace: 'default' }, data: { k: 'three' } });
    for await (const e of stream) {
      expect([e.type, e.object.kind, e.object.metadata.name, (e.object as { data?: unknown }).data]).toEqual(['ADDED', 'ConfigMap', 'three', { k: 'three' }]);
      expect(e.bytes).toBeGreaterThan(0);
      break;
    }
    stream.close();
  });

  it('a kind the server answers in JSON (leases: no schema in the sim) is read as JSON', async () => {
    const { lw, records } = await setup();
    const page = await lw('protobuf', { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true, namespace: 'kube-node-lease' }).list({});
    expect(lastType(records)).toBeUndefined();
    expect(page.items.map((i) => i.metadata.name)).toEqual(['node-001', 'node-002']);
  });

  it('an error sent as a protobuf Status is read as that Status', async () => {
    const { lw } = await setup();
    const err = await lw('protobuf', { ...CONFIGMAPS, fieldSelector: 'no.such.field=x' }).list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest', message: expect.stringContaining('no.such.field') });
  });
});
