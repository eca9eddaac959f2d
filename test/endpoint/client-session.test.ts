import { describe, expect, it } from 'vitest';
import { ClientSession, clientName } from '../../src/endpoint/client-session.js';
import { decodedObject } from '../../src/endpoint/sent-object.js';

const cm = (name: string, rv: string, extra: Record<string, unknown> = {}) => decodedObject({ metadata: { namespace: 'demo', name, resourceVersion: rv, uid: `uid-${name}`, ...extra } });

describe('clientName', () => {
  it('names a client by its User-Agent product, with the component client-go appends', () => {
    expect(clientName('manager/v0.0.0 (linux/amd64) kubernetes/$Format/leader-election')).toBe('manager/leader-election');
    expect(clientName('kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07')).toBe('kubectl');
    expect(clientName('OpenAPI-Generator/22.6.0/python')).toBe('OpenAPI-Generator');
    expect(clientName(undefined)).toBe('unknown');
  });
});

describe('ClientSession', () => {
  it('says why a client lists a collection again', () => {
    const s = new ClientSession('c', 'c');
    expect(s.listStarted('pods')).toBeUndefined();
    s.watchOpened('pods');
    s.watchClosed('pods', '410');
    expect(s.listStarted('pods')).toMatch(/^it was sent 410 Gone/);
    s.watchOpened('pods');
    s.watchClosed('pods', 'timeout');
    expect(s.listStarted('pods')).toMatch(/^its watch was closed \(timeout\)/);
    expect(s.listStarted('pods')).toMatch(/^nothing the server did/);
    expect(s.relists).toBe(3);
  });

  it('marks a write\'s echo as its own even when the event arrived before the write\'s answer', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', { type: 'MODIFIED', key: 'demo/a', rv: '7', object: cm('a', '7') }, 1000);
    s.ownWrite('configmaps', 'demo/a', '7');
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 1100, 5000)).toEqual([expect.objectContaining({ rv: '7', own: true })]);
  });

  it('names owner and owned objects among the likely triggers, within the window only', () => {
    const s = new ClientSession('c', 'c');
    s.event('secrets', { type: 'MODIFIED', key: 'demo/a-copy', rv: '3', object: cm('a-copy', '3', { ownerReferences: [{ uid: 'uid-a' }] }) }, 1000);
    s.event('configmaps', { type: 'MODIFIED', key: 'demo/other', rv: '4', object: cm('other', '4') }, 1000);
    s.sent('configmaps', cm('a', '2'));
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 2000, 5000).map((t) => t.key)).toEqual(['demo/a-copy']);
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 7000, 5000)).toEqual([]);
  });

  it('reports a loop only for rounds re-triggered by its own write, naming the fields that change every round', () => {
    const s = new ClientSession('c', 'c');
    const own = [{ time: 0, resource: 'configmaps', type: 'MODIFIED', key: 'demo/a', owners: [], own: true }];
    const outside = [{ ...own[0], own: false }];
    expect(s.observeWrite('configmaps', 'demo/a', ['data.x', 'metadata.annotations.t'], outside, 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t', 'data.y'], own, 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t'], [...outside, ...own], 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t', 'status.z'], own, 2)).toEqual({ client: 'c', key: 'demo/a', resource: 'configmaps', rounds: 3, fields: ['metadata.annotations.t'] });
    // Reported once; a no-op write ends the streak.
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t'], own, 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', [], own, 2)).toBeUndefined();
    expect(s.loops).toHaveLength(1);
  });

  it('an outside trigger restarts the streak', () => {
    const s = new ClientSession('c', 'c');
    const own = [{ time: 0, resource: 'configmaps', type: 'MODIFIED', key: 'demo/a', owners: [], own: true }];
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], own, 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own, 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own, 1)).toMatchObject({ rounds: 2 });
  });
});
