import { describe, expect, it } from 'vitest';
import { aggregatedVersion, splitAggregated } from '../../src/kube/discovery/aggregated-discovery.js';

describe('aggregated discovery', () => {
  it('is recognised by Content-Type only, as client-go ContentTypeIsGVK does', () => {
    expect(aggregatedVersion('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).toBe('v2');
    expect(aggregatedVersion('application/json; as=APIGroupDiscoveryList; v=v2beta1; g=apidiscovery.k8s.io; charset=utf-8')).toBe('v2beta1');
    expect(aggregatedVersion('application/json')).toBeUndefined();
    expect(aggregatedVersion('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList')).toBeUndefined();
    expect(aggregatedVersion('application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).toBeUndefined();
    expect(aggregatedVersion(undefined)).toBeUndefined();
  });

  it('drops stale versions (reported as failed) and resources without responseKind; subresources inherit from the parent', () => {
    const split = splitAggregated({
      items: [
        {
          metadata: { name: 'example.com' },
          versions: [
            { version: 'v2', freshness: 'Stale', resources: [] },
            {
              version: 'v1',
              freshness: 'Current',
              resources: [
                { resource: 'foos', responseKind: { group: 'example.com', version: 'v1', kind: 'Foo' }, scope: 'Namespaced', singularResource: 'foo', verbs: ['get'], subresources: [{ subresource: 'status', responseKind: { group: 'example.com', version: 'v1', kind: 'Foo' }, verbs: ['get'] }] },
                { resource: 'nokinds', scope: 'Cluster', singularResource: 'nokind', verbs: ['get'] },
              ],
            },
          ],
        },
      ],
    });
    expect(split.groups.groups[0]).toEqual({ name: 'example.com', versions: [{ groupVersion: 'example.com/v1', version: 'v1' }], preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' } });
    expect([...split.failed]).toEqual([['example.com/v2', 'stale GroupVersion discovery: example.com/v2']]);
    expect(split.resources.get('example.com/v1')!.resources.map((r) => `${r.name} ${r.singularName} ${r.namespaced}`)).toEqual(['foos foo true', 'foos/status foo true']);
    expect(split.dropped).toEqual(['example.com/v1 nokinds: missing GVK']);
  });
});
