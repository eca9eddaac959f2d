// The target's discovery of one group/version as the fork's resource types, for kinds the sim does not model: the
// target's names, scope, verbs, short names, categories and subresources, and a group/version the target lacks as none.
import { describe, expect, it } from 'vitest';
import type { Connection, HttpRequest } from '../../src/kube/http/connection.js';
import { upstreamResourceTypes } from '../../src/endpoint/upstream-kinds.js';

function target(status: number, doc: unknown) {
  const asked: HttpRequest[] = [];
  let drained = 0;
  const conn = {
    request: async (r: HttpRequest) => {
      asked.push(r);
      return { status, headers: {}, body: { text: async () => { drained++; return JSON.stringify(doc); }, json: async () => doc } };
    },
  } as unknown as Connection;
  return { conn, asked, drained: () => drained };
}

const widgets = {
  kind: 'APIResourceList', groupVersion: 'example.com/v1',
  resources: [
    { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list', 'watch', 'create'], shortNames: ['wd'], categories: ['all'] },
    { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch'] },
    { name: 'widgets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'update'] },
    { name: 'gadgets', singularName: '', namespaced: false, kind: 'GadgetThing', verbs: ['get'] },
    { name: 'gadgets/scale', singularName: '', namespaced: false, kind: 'Scale', verbs: ['get'] },
    { name: 'gadgetsx/status', singularName: '', namespaced: false, kind: 'Other', verbs: ['get'] },
  ],
};

describe('upstreamResourceTypes', () => {
  it('makes each main resource a type with its subresources, asking /apis/G/V for JSON', async () => {
    const t = target(200, widgets);
    const types = await upstreamResourceTypes(t.conn, 'example.com', 'v1');
    expect(t.asked).toEqual([{ path: '/apis/example.com/v1', headers: { Accept: 'application/json' }, allowErrorStatus: true }]);
    expect(types).toEqual([
      {
        group: 'example.com', version: 'v1', resource: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', namespaced: true,
        verbs: ['get', 'list', 'watch', 'create'], shortNames: ['wd'], categories: ['all'],
        subresources: [
          { name: 'status', kind: 'Widget', verbs: ['get', 'patch'] },
          { name: 'scale', kind: 'Scale', verbs: ['get', 'update'], group: 'autoscaling', version: 'v1' },
        ],
        hasStatusSubresource: true, crd: 'kwatch-mirror:example.com/v1',
      },
      {
        // No singular name given: the kind in lower case. A subresource of another name's prefix is not its own.
        group: 'example.com', version: 'v1', resource: 'gadgets', singular: 'gadgetthing', kind: 'GadgetThing', listKind: 'GadgetThingList', namespaced: false,
        // A /scale alone is no /status.
        verbs: ['get'], subresources: [{ name: 'scale', kind: 'Scale', verbs: ['get'] }], hasStatusSubresource: false, crd: 'kwatch-mirror:example.com/v1',
      },
    ]);
  });

  it('asks /api/V for the core group; a group/version the target lacks (404) is no types; another error is one line', async () => {
    const core = target(200, { kind: 'APIResourceList', resources: [] });
    expect(await upstreamResourceTypes(core.conn, '', 'v1')).toEqual([]);
    expect(core.asked[0].path).toBe('/api/v1');
    const missing = target(404, { kind: 'Status' });
    expect(await upstreamResourceTypes(missing.conn, 'gone.example.com', 'v1')).toEqual([]);
    // Its body is read off, so the connection is free again.
    expect(missing.drained()).toBe(1);
    await expect(upstreamResourceTypes(target(403, {}).conn, 'example.com', 'v1')).rejects.toThrow(/^discovery of \/apis\/example.com\/v1 answered 403$/);
    await expect(upstreamResourceTypes(target(302, {}).conn, 'example.com', 'v1')).rejects.toThrow('answered 302');
    await expect(upstreamResourceTypes(target(199, {}).conn, 'example.com', 'v1')).rejects.toThrow('answered 199');
    expect(await upstreamResourceTypes(target(204, { resources: [] }).conn, 'example.com', 'v1')).toEqual([]);
  });
});
