// Where the fork's (and `sim --mirror`'s) reflector writes: a relist must remove what the target no longer holds, a
// watch's changes go through as they come, and the fork is told once when its first complete list is in.
import { describe, expect, it } from 'vitest';
import { MirrorSink } from '../../src/endpoint/mirror-sink.js';
import type { KubeObject } from '../../src/informer/types.js';

const obj = (name: string, namespace?: string, rv = '1') => ({ metadata: { name, ...(namespace !== undefined ? { namespace } : {}), resourceVersion: rv } }) as KubeObject;

function sink() {
  const log: string[] = [];
  const name = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  const s = new MirrorSink({
    put: (o) => log.push(`put ${name(o)}@${o.metadata?.resourceVersion ?? '-'}`),
    remove: (o) => log.push(`remove ${name(o)}`),
    synced: () => log.push('synced'),
  });
  return { s, log };
}

describe('MirrorSink', () => {
  it('puts every listed object, says synced once, and on a relist removes what the new list lacks', () => {
    const { s, log } = sink();
    s.replace([obj('a', 'demo'), obj('b', 'demo'), obj('node-1')]);
    expect(log.splice(0)).toEqual(['put demo/a@1', 'put demo/b@1', 'put /node-1@1', 'synced']);
    s.replace([obj('a', 'demo', '2')]);
    expect(log.splice(0)).toEqual(['put demo/a@2', 'remove demo/b', 'remove /node-1']);
    s.replace([]);
    expect(log.splice(0)).toEqual(['remove demo/a']);
    s.replace([]);
    expect(log).toEqual([]);
  });

  it('keeps track of what watch events added and deleted, for the next relist', () => {
    const { s, log } = sink();
    s.replace([obj('a', 'demo')]);
    s.add(obj('b', 'demo'));
    s.update(obj('c', 'other', '5'));
    s.delete(obj('a', 'demo'));
    expect(log.splice(0)).toEqual(['put demo/a@1', 'synced', 'put demo/b@1', 'put other/c@5', 'remove demo/a']);
    // a was deleted by its event: the relist does not remove it again; b and c, listed no more, go.
    s.replace([obj('d', 'demo')]);
    expect(log.splice(0)).toEqual(['put demo/d@1', 'remove demo/b', 'remove other/c']);
  });

  it('removes a namespaced object by namespace and name, and a cluster-scoped one by name alone', () => {
    const removed: KubeObject[] = [];
    const s = new MirrorSink({ put: () => {}, remove: (o) => removed.push(o), synced: () => {} });
    s.add(obj('a', 'demo'));
    s.add(obj('node-1'));
    s.add(obj('a', 'other'));
    s.replace([]);
    expect(removed.map((o) => o.metadata)).toEqual([{ namespace: 'demo', name: 'a' }, { name: 'node-1' }, { namespace: 'other', name: 'a' }]);
  });

  it('tells one object from another by namespace and name: the same name in two namespaces is two objects', () => {
    const { s, log } = sink();
    s.replace([obj('a', 'demo'), obj('a', 'other')]);
    log.length = 0;
    s.replace([obj('a', 'other')]);
    expect(log).toEqual(['put other/a@1', 'remove demo/a']);
  });

  it('a resync re-delivers nothing: the fork\'s own watches serve the objects', () => {
    const { s, log } = sink();
    s.replace([obj('a', 'demo')]);
    log.length = 0;
    s.resync();
    expect(log).toEqual([]);
  });
});
