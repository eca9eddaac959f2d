// `reconcile --exec --from-recording FILE`: the recording served as a cluster. What a controller reads from it: the first
// lists, then the recorded changes at the recording's pace, kinds the sim does not know served under the recording's
// names, namespaces made for the objects in them, and a resource the recording only names served empty.
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecording } from '../../src/informer/recording/recording-reader.js';
import { startRecordingCluster, type RecordingCluster } from '../../src/endpoint/recording-cluster.js';

const HEADER = {
  kind: 'KwatchRecording', formatVersion: 2, kwatchVersion: '0.1.0', server: 'https://example.test:6443', startTime: '2026-01-01T00:00:00.000Z', masked: true,
  resources: [
    { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true },
    { group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: false },
    { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  ],
};
// Items of a typed list carry no kind, as kube sends them.
const item = (name: string, rv: string, namespace = 'team-a', data: Record<string, string> = { v: rv }) => ({ metadata: { name, namespace, resourceVersion: rv, uid: `uid-${name}` }, data });
const ENTRIES = [
  { rec: 'list', t: 10, res: 0, conn: 1, options: {}, page: { metadata: { resourceVersion: '10' }, items: [item('a', '5'), item('b', '6', 'team-b'), item('c', '7')] } },
  { rec: 'watch-start', t: 11, res: 0, conn: 2, options: { resourceVersion: '10' } },
  { rec: 'event', t: 100, res: 0, conn: 2, event: { type: 'MODIFIED', object: { kind: 'ConfigMap', apiVersion: 'v1', ...item('a', '11', 'team-a', { v: 'changed' }) } } },
  { rec: 'event', t: 200, res: 0, conn: 2, event: { type: 'DELETED', object: { kind: 'ConfigMap', apiVersion: 'v1', ...item('c', '12') } } },
  { rec: 'watch-end', t: 300, res: 0, conn: 2, reason: 'eof' },
  { rec: 'list', t: 12, res: 1, conn: 3, options: {}, page: { metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 'w1', namespace: 'team-c', resourceVersion: '8' }, spec: { size: 3 } }] } },
  { rec: 'list', t: 13, res: 2, conn: 4, options: {}, page: { metadata: { resourceVersion: '10' }, items: [{ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1', resourceVersion: '9' } }] } },
];

let cluster: RecordingCluster | undefined;
afterEach(async () => { await cluster?.close(); cluster = undefined; });

const get = async (path: string) => {
  const res = await fetch(`${cluster!.url}${path}`);
  return { status: res.status, body: (await res.json()) as { items?: { metadata: { name: string } }[]; metadata?: { name?: string } } };
};
const names = (body: { items?: { metadata: { name: string } }[] }) => (body.items ?? []).map((i) => i.metadata.name).sort();

describe('startRecordingCluster', () => {
  it('seeds the first lists, plays the recorded changes to the end, and serves what the recording holds', async () => {
    cluster = await startRecordingCluster(parseRecording(`${[HEADER, ...ENTRIES].map((l) => JSON.stringify(l)).join('\n')}\n`), { speed: 100_000 });
    await cluster.seeded;
    expect(await cluster.played).toBe(true);
    const cms = await get('/api/v1/namespaces/team-a/configmaps');
    expect(names(cms.body)).toEqual(['a']);
    expect((await get('/api/v1/namespaces/team-a/configmaps/a')).body).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { v: 'changed' } });
    expect(names((await get('/api/v1/namespaces/team-b/configmaps')).body)).toEqual(['b']);
    // Each object's namespace made, active, once.
    for (const ns of ['team-a', 'team-b', 'team-c']) expect((await get(`/api/v1/namespaces/${ns}`)).body).toMatchObject({ metadata: { name: ns }, status: { phase: 'Active' } });
    // A kind the sim does not know: served with the recording's names, its items given their kind.
    const widgets = await get('/apis/example.com/v1/namespaces/team-c/widgets');
    expect(widgets.status).toBe(200);
    expect(names(widgets.body)).toEqual(['w1']);
    expect((await get('/apis/example.com/v1/namespaces/team-c/widgets/w1')).body).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } });
    const gadget = await get('/apis/example.com/v1/gadgets/g1');
    expect(gadget.status).toBe(200);
    expect(gadget.body.metadata?.name).toBe('g1');
    // Its status subresource is served too.
    expect((await get('/apis/example.com/v1/namespaces/team-c/widgets/w1/status')).status).toBe(200);
    // Named by the recording, never listed: served empty.
    const secrets = await get('/api/v1/namespaces/team-a/secrets');
    expect(secrets.status).toBe(200);
    expect(secrets.body.items).toEqual([]);
  });

  it('when closed before the end, says it was not played through', async () => {
    const slow = [...ENTRIES, { rec: 'event', t: 3_600_000, res: 0, conn: 2, event: { type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', ...item('late', '99') } } }];
    cluster = await startRecordingCluster(parseRecording(`${[HEADER, ...slow].map((l) => JSON.stringify(l)).join('\n')}\n`), { speed: 1 });
    await cluster.seeded;
    expect(names((await get('/api/v1/namespaces/team-a/configmaps')).body)).toEqual(['a', 'c']);
    await cluster.close();
    expect(await cluster.played).toBe(false);
    cluster = undefined;
  });
});
