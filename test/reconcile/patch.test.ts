import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch, applyPatch, applyStrategicMergePatch, createMergePatch, PatchError } from '../../src/reconcile/patch.js';

const deploy = {
  metadata: { name: 'web', labels: { app: 'web', tier: 'front' } },
  spec: { template: { spec: { containers: [{ name: 'app', image: 'a:1', env: [{ name: 'A', value: '1' }] }, { name: 'side', image: 's:1' }] } } },
};

describe('local patches, as the API server applies them', () => {
  it('merge patch (RFC 7386): objects merge, null deletes, lists replace; createMergePatch inverts it', () => {
    const out = applyMergePatch(deploy, { metadata: { labels: { tier: null, team: 'x' } }, spec: { template: { spec: { containers: [{ name: 'only' }] } } } });
    expect(out).toEqual({ metadata: { name: 'web', labels: { app: 'web', team: 'x' } }, spec: { template: { spec: { containers: [{ name: 'only' }] } } } });
    expect(deploy.metadata.labels.tier).toBe('front'); // the input is never mutated
    expect(applyMergePatch(deploy, createMergePatch(deploy, out))).toEqual(out);
  });

  it('JSON patch (RFC 6902): all six operations, and a failed test or a missing path fails as a 422 would', () => {
    const out = applyJsonPatch({ a: { b: [1, 2] }, c: 1 }, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'replace', path: '/c', value: 2 },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'remove', path: '/a/b/0' },
      { op: 'test', path: '/e', value: 2 },
    ]);
    expect(out).toEqual({ a: { b: [2, 3] }, c: 2, e: 2 });
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(PatchError);
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toThrow(/does not exist/);
  });

  it('strategic merge patch merges containers and env by name, and $patch: delete removes one', () => {
    const out = applyStrategicMergePatch(deploy, {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'a:2', env: [{ name: 'B', value: '2' }] }, { name: 'side', $patch: 'delete' }] } } },
    }) as typeof deploy;
    expect(out.spec.template.spec.containers).toEqual([{ name: 'app', image: 'a:2', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }]);
    expect(applyPatch(deploy as never, { metadata: { labels: { app: 'api' } } }, 'apply').metadata.labels).toEqual({ app: 'api', tier: 'front' });
  });
});
