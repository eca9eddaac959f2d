// What a client's session keeps and answers, in the detail its records depend on: the newest version of each object it
// was sent, the recent events a write's likely triggers come from, its lists, watches and relists, its own writes and
// the loops they make, and which client a connection belongs to.
import { describe, expect, it } from 'vitest';
import type { ScannedEvent } from '../../src/endpoint/body-scan.js';
import { ClientRegistry, ClientSession, clientName, type RecentEvent } from '../../src/endpoint/client-session.js';
import { decodedObject } from '../../src/endpoint/sent-object.js';

const cm = (name: string, rv: string, extra: Record<string, unknown> = {}) => decodedObject({ metadata: { namespace: 'demo', name, resourceVersion: rv, uid: `uid-${name}`, ...extra } });
const ev = (type: string, name: string, rv: string, extra: Record<string, unknown> = {}): ScannedEvent => ({ type, key: `demo/${name}`, rv, object: cm(name, rv, extra) });

describe('clientName: a User-Agent that names nothing', () => {
  it('is unknown when empty or without a product, and takes no component from a User-Agent without one', () => {
    expect(clientName('')).toBe('unknown');
    expect(clientName('/1.0 (linux/amd64)')).toBe('unknown');
    expect(clientName('curl/8.5.0')).toBe('curl');
    expect(clientName('Go-http-client/1.1')).toBe('Go-http-client');
    expect(clientName('manager/v1 (linux/amd64) kubernetes/abc/leader election')).toBe('manager');
  });
});

describe('ClientSession: what it was sent', () => {
  it('keeps the newest version of each object per resource, forgets a deleted one, and ignores what has no name', () => {
    const s = new ClientSession('c', 'c');
    s.sent('configmaps', cm('a', '1'));
    s.sent('secrets', cm('a', '9'));
    s.sent('configmaps', cm('a', '2'), 'MODIFIED');
    expect(s.newest('configmaps', 'demo/a')?.rv).toBe('2');
    expect(s.newest('secrets', 'demo/a')?.rv).toBe('9');
    s.sent('configmaps', cm('a', '3'), 'DELETED');
    expect(s.newest('configmaps', 'demo/a')).toBeUndefined();
    expect(s.newest('secrets', 'demo/a')?.rv).toBe('9');
    s.sent('configmaps', decodedObject({ kind: 'Status', metadata: {} }));
    expect(s.newest('configmaps', 'undefined')).toBeUndefined();
    expect(s.newest('pods', 'demo/a')).toBeUndefined();
  });

  it('keeps every object of a resource, not only the last one sent', () => {
    const s = new ClientSession('c', 'c');
    s.sent('configmaps', cm('a', '1'));
    s.sent('configmaps', cm('b', '2'));
    expect(s.newest('configmaps', 'demo/a')?.rv).toBe('1');
    expect(s.newest('configmaps', 'demo/b')?.rv).toBe('2');
  });

  it('keeps what keep() answers, not the borrowed object', () => {
    const s = new ClientSession('c', 'c');
    const owned = cm('a', '1');
    s.sent('configmaps', { ...cm('a', '1'), keep: () => owned });
    expect(s.newest('configmaps', 'demo/a')).toBe(owned);
  });

  it('a bookmark, an error, an event without an object or a name is no event of an object', () => {
    const s = new ClientSession('c', 'c');
    expect(s.event('configmaps', { type: 'BOOKMARK', key: 'demo/a', rv: '5', object: cm('a', '5') }, 0)).toBeUndefined();
    expect(s.event('configmaps', { type: 'ERROR', key: 'demo/a', object: cm('a', '5') }, 0)).toBeUndefined();
    expect(s.event('configmaps', { type: 'ADDED', key: 'demo/a', rv: '5' }, 0)).toBeUndefined();
    expect(s.event('configmaps', { type: 'ADDED', rv: '5', object: cm('a', '5') }, 0)).toBeUndefined();
    expect(s.newest('configmaps', 'demo/a')).toBeUndefined();
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 0, 10_000)).toEqual([]);
  });

  it('an event answers what it was, and the object becomes the newest version; a deleted one is forgotten', () => {
    const s = new ClientSession('c', 'c');
    const added = s.event('configmaps', ev('ADDED', 'a', '1', { ownerReferences: [{ uid: 'uid-owner' }] }), 100);
    expect(added).toMatchObject({ time: 100, resource: 'configmaps', type: 'ADDED', key: 'demo/a', rv: '1', uid: 'uid-a', own: false });
    expect(added?.owners).toEqual(['uid-owner']);
    expect(s.newest('configmaps', 'demo/a')?.rv).toBe('1');
    expect(s.event('configmaps', ev('DELETED', 'a', '2'), 200)).toMatchObject({ type: 'DELETED', rv: '2' });
    expect(s.newest('configmaps', 'demo/a')).toBeUndefined();
  });

  it('the same resourceVersion of another object (a uid made anew) replaces the one held', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', ev('ADDED', 'a', '1'), 0);
    const held = s.newest('configmaps', 'demo/a');
    s.event('configmaps', ev('ADDED', 'a', '1', { uid: 'uid-new' }), 1);
    expect(s.newest('configmaps', 'demo/a')).not.toBe(held);
    expect(s.newest('configmaps', 'demo/a')?.uid).toBe('uid-new');
    // An event without a resourceVersion is never taken for the held version.
    s.event('configmaps', { type: 'MODIFIED', key: 'demo/a', object: decodedObject({ metadata: { namespace: 'demo', name: 'a', uid: 'uid-new' } }) }, 2);
    expect(s.newest('configmaps', 'demo/a')?.rv).toBeUndefined();
  });

  it('a Table row (kubectl get -w) is among the recent events but no version of the object', () => {
    const s = new ClientSession('c', 'c');
    s.sent('configmaps', cm('a', '1'));
    const row = s.event('configmaps', { ...ev('MODIFIED', 'a', '2'), table: true }, 0);
    expect(row).toMatchObject({ type: 'MODIFIED', rv: '2' });
    expect(s.newest('configmaps', 'demo/a')?.rv).toBe('1');
    // Nor does a deleted row forget the object.
    s.event('configmaps', { ...ev('DELETED', 'a', '3'), table: true }, 0);
    expect(s.newest('configmaps', 'demo/a')?.rv).toBe('1');
  });
});

describe('ClientSession: the likely triggers of a write', () => {
  it('are the newest three of the window: events of the key, of objects it owns, of its owners', () => {
    const s = new ClientSession('c', 'c');
    for (let i = 1; i <= 5; i++) s.event('configmaps', ev('MODIFIED', 'a', String(i)), 1000 + i);
    s.event('configmaps', ev('MODIFIED', 'other', '6'), 1006);
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 1010, 5000).map((t) => t.rv)).toEqual(['3', '4', '5']);
    // Another resource of the same key is another object.
    expect(s.likelyTriggers('secrets', 'demo/a', undefined, 1010, 5000)).toEqual([]);
  });

  it('reads the written object\'s uid and owners from its body, before what the client was sent', () => {
    const s = new ClientSession('c', 'c');
    s.event('pods', ev('MODIFIED', 'child', '1', { ownerReferences: [{ uid: 'uid-from-body' }] }), 0);
    s.event('deployments', { type: 'MODIFIED', key: 'demo/owner', rv: '2', object: decodedObject({ metadata: { namespace: 'demo', name: 'owner', uid: 'uid-owner', resourceVersion: '2' } }) }, 0);
    const written = { metadata: { uid: 'uid-from-body', ownerReferences: [{ uid: 'uid-owner' }, {}] } };
    expect(s.likelyTriggers('replicasets', 'demo/rs', written, 10, 5000).map((t) => t.key)).toEqual(['demo/child', 'demo/owner']);
    // Each trigger as the write record and the loop check read it: its owners among its fields.
    expect(s.likelyTriggers('replicasets', 'demo/rs', written, 10, 5000)[0]).toEqual({ time: 0, resource: 'pods', type: 'MODIFIED', key: 'demo/child', rv: '1', uid: 'uid-child', owners: ['uid-from-body'], own: false });
    // Without a body, the uid of the version the client holds.
    s.sent('replicasets', decodedObject({ metadata: { namespace: 'demo', name: 'rs', uid: 'uid-from-body' } }));
    expect(s.likelyTriggers('replicasets', 'demo/rs', undefined, 10, 5000).map((t) => t.key)).toEqual(['demo/child']);
    // An owner reference without a uid names no event without one.
    s.event('secrets', { type: 'MODIFIED', key: 'demo/no-uid', rv: '3', object: decodedObject({ metadata: { namespace: 'demo', name: 'no-uid', resourceVersion: '3' } }) }, 0);
    expect(s.likelyTriggers('replicasets', 'demo/x', { metadata: { ownerReferences: [{}] } }, 10, 5000)).toEqual([]);
  });

  it('the window is inclusive, and an event is its own write\'s echo only for that resource, key and version', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', ev('MODIFIED', 'a', '7'), 1000);
    s.ownWrite('configmaps', 'demo/a', '8');
    s.ownWrite('secrets', 'demo/a', '7');
    s.ownWrite('configmaps', 'demo/b', '7');
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 6000, 5000)).toEqual([expect.objectContaining({ rv: '7', own: false })]);
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 6001, 5000)).toEqual([]);
    // A write answered without a resourceVersion marks nothing.
    s.ownWrite('configmaps', 'demo/a', undefined);
    expect(s.ownWriteRv('configmaps', 'demo/a')).toBe('8');
    expect(s.ownWriteRv('configmaps', 'demo/b')).toBe('7');
    expect(s.ownWriteRv('pods', 'demo/a')).toBeUndefined();
  });

  it('forgets events older than ten seconds once it trims, and keeps the newest ones', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', ev('MODIFIED', 'old', '1'), 0);
    s.event('configmaps', ev('MODIFIED', 'a', '2'), 5000);
    // 11.5 s after the first: past the window and its slack, the list is trimmed to the last ten seconds.
    s.event('configmaps', ev('MODIFIED', 'a', '3'), 11_500);
    expect(s.likelyTriggers('configmaps', 'demo/old', undefined, 11_500, 60_000)).toEqual([]);
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 11_500, 60_000).map((t) => t.rv)).toEqual(['2', '3']);
  });

  it('within the slack, an old event is still asked about', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', ev('MODIFIED', 'old', '1'), 0);
    s.event('configmaps', ev('MODIFIED', 'a', '2'), 10_900);
    expect(s.likelyTriggers('configmaps', 'demo/old', undefined, 10_900, 60_000).map((t) => t.rv)).toEqual(['1']);
  });

  it('a busy client keeps at most the newest 2000 events', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', ev('MODIFIED', 'first', '0'), 0);
    for (let i = 1; i <= 4001; i++) s.event('configmaps', ev('MODIFIED', `o${i}`, String(i)), 1);
    expect(s.likelyTriggers('configmaps', 'demo/first', undefined, 1, 60_000)).toEqual([]);
    expect(s.likelyTriggers('configmaps', 'demo/o2002', undefined, 1, 60_000).map((t) => t.rv)).toEqual(['2002']);
    expect(s.likelyTriggers('configmaps', 'demo/o2001', undefined, 1, 60_000)).toEqual([]);
  });
});

describe('ClientSession: lists and watches', () => {
  it('counts the watches open and started, per collection too, never below none, and the 410s', () => {
    const s = new ClientSession('c', 'c');
    s.watchOpened('pods');
    s.watchOpened('pods');
    s.watchOpened('configmaps');
    expect([s.watchesOpen, s.watchesStarted]).toEqual([3, 3]);
    s.watchClosed('pods', '410');
    s.watchClosed('configmaps', 'timeout');
    s.watchClosed('configmaps', 'client');
    // The client's count: every close, whichever collection (the last one has none open left).
    expect([s.watchesOpen, s.watchesStarted, s.expired]).toEqual([0, 3, 1]);
    expect(s.collectionsSeen()).toEqual([{ id: 'pods', watched: true, lists: 0 }, { id: 'configmaps', watched: false, lists: 0 }]);
    s.listStarted('secrets');
    s.listStarted('secrets');
    expect(s.collectionsSeen()).toContainEqual({ id: 'secrets', watched: false, lists: 2 });
    s.watchClosed('pods', 'server');
    s.watchClosed('pods', 'server');
    expect(s.watchesOpen).toBe(0);
    expect(s.collectionsSeen()[0]).toEqual({ id: 'pods', watched: false, lists: 0 });
    s.watchOpened('pods');
    expect(s.watchesOpen).toBe(1);
    expect(s.collectionsSeen()[0]).toEqual({ id: 'pods', watched: true, lists: 0 });
  });

  it('a watch the client closed itself makes the next list the client\'s own doing; each reason is said once', () => {
    const s = new ClientSession('c', 'c');
    s.listStarted('pods');
    s.watchClosed('pods', 'client');
    expect(s.listStarted('pods')).toMatch(/^nothing the server did/);
    s.watchClosed('pods', 'error');
    expect(s.listStarted('pods')).toBe('its watch was closed (error): a reflector would re-watch from its last resourceVersion instead');
    // Answered: the next list has no server reason left.
    expect(s.listStarted('pods')).toMatch(/^nothing the server did/);
    s.watchClosed('pods', '410');
    expect(s.listStarted('pods')).toBe('it was sent 410 Gone (its resourceVersion expired): relisting is what a reflector must do');
    expect(s.listStarted('pods')).toMatch(/^nothing the server did/);
    expect(s.relists).toBe(5);
    // Another collection's first list is its start.
    expect(s.listStarted('configmaps')).toBeUndefined();
  });

  it('a process seen before that lists again relists; a list without a process known is judged by the collection', () => {
    const s = new ClientSession('c', 'c', 20);
    expect(s.listStarted('pods', 20)).toBeUndefined();
    expect(s.listStarted('pods', 20)).toMatch(/^nothing the server did/);
    expect(s.listStarted('pods')).toMatch(/^nothing the server did/);
    expect(s.relists).toBe(2);
  });

  it('counts its writes and when it last wrote', () => {
    const s = new ClientSession('c', 'c');
    expect(s.lastWriteAt).toBeUndefined();
    s.wrote(100);
    s.wrote(250);
    expect([s.writes, s.lastWriteAt]).toEqual([2, 250]);
  });
});

describe('ClientSession: loops', () => {
  const own = (resource = 'configmaps', key = 'demo/a'): RecentEvent[] => [{ time: 0, resource, type: 'MODIFIED', key, owners: [], own: true }];

  it('the echo of its own write of another key or resource does not make a round', () => {
    const s = new ClientSession('c', 'c');
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own('configmaps', 'demo/b'), 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own('secrets', 'demo/a'), 1)).toBeUndefined();
    s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1)).toEqual({ client: 'c', key: 'demo/a', resource: 'configmaps', rounds: 2, fields: ['f'] });
    expect(s.loops).toEqual([{ client: 'c', key: 'demo/a', resource: 'configmaps', rounds: 2, fields: ['f'] }]);
  });

  it('the echo of its own write of another key alone starts the streak over', () => {
    const s = new ClientSession('c', 'c');
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own('configmaps', 'demo/b'), 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1)).toBeUndefined();
  });

  it('rounds that change no field in common start the streak over', () => {
    const s = new ClientSession('c', 'c');
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1);
    // Round two changes another field: nothing changed every round.
    expect(s.observeWrite('configmaps', 'demo/a', ['g'], own(), 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['g'], own(), 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['g'], own(), 1)).toMatchObject({ rounds: 2, fields: ['g'] });
  });

  it('a no-op write ends the streak; each key has its own', () => {
    const s = new ClientSession('c', 'c');
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    s.observeWrite('configmaps', 'demo/b', ['f'], [], 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1);
    s.observeWrite('configmaps', 'demo/b', ['f'], own('configmaps', 'demo/b'), 1);
    s.observeWrite('configmaps', 'demo/a', [], own(), 1);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own(), 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/b', ['f'], own('configmaps', 'demo/b'), 1)).toMatchObject({ key: 'demo/b', rounds: 2 });
  });

  it('the threshold is passed, not reached', () => {
    const s = new ClientSession('c', 'c');
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 2);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own(), 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own(), 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own(), 2)).toMatchObject({ rounds: 3 });
  });
});

describe('ClientRegistry', () => {
  it('without a process, one client per User-Agent, named by it; no User-Agent is one client too', () => {
    const r = new ClientRegistry();
    const a = r.for('kubectl/v1.32 (linux/amd64) kubernetes/abc');
    expect(r.for('kubectl/v1.32 (linux/amd64) kubernetes/abc')).toBe(a);
    expect(a).toMatchObject({ name: 'kubectl', userAgent: 'kubectl/v1.32 (linux/amd64) kubernetes/abc', pid: undefined });
    const none = r.for(undefined);
    expect(none).toMatchObject({ name: 'unknown', userAgent: '' });
    expect(r.for(undefined)).toBe(none);
    expect(r.all()).toEqual([a, none]);
    // A copy: the caller's changes do not reach the registry.
    r.all().pop();
    expect(r.all()).toHaveLength(2);
  });

  it('the root process and its forks are one client whatever their User-Agents; a pid another program reuses is another client', () => {
    const r = new ClientRegistry();
    const root = (pid: number, program = 'manager') => ({ root: true, group: '10', program, pid });
    const first = r.for('manager/v1', root(10));
    expect(first).toMatchObject({ name: 'manager[10]', userAgent: 'manager/v1', pid: 10 });
    expect(r.for('other/v2', root(11))).toBe(first);
    // The root's group is one client, whichever program a pid of it runs.
    expect(r.for('manager/v1', root(10, 'kubectl'))).toBe(first);
    const sub = (pid: number, program: string) => ({ root: false, group: 'kubectl < sh[10]', program, pid });
    const k1 = r.for('kubectl/v1', sub(30, 'kubectl'));
    expect(k1.name).toBe('kubectl[30]');
    // Pid 30 reused by python3: another process, another client.
    const reused = r.for('python/3', sub(30, 'python3'));
    expect(reused).not.toBe(k1);
    expect(reused.name).toBe('python3[30]');
    // That process keeps its client, whatever User-Agent it sends next.
    expect(r.for('kubectl/v1', sub(30, 'python3'))).toBe(reused);
    expect(r.all()).toEqual([first, k1, reused]);
  });

  it('a process\'s later User-Agent names the same client for the program\'s next runs', () => {
    const r = new ClientRegistry();
    const sub = (pid: number) => ({ root: false, group: 'kubectl < sh[10]', program: 'kubectl', pid });
    const first = r.for('kubectl-dispatcher/v1', sub(40));
    expect(r.for('kubectl/v1', sub(40))).toBe(first);
    // The next kubectl run says kubectl from its first request.
    expect(r.for('kubectl/v1', sub(41))).toBe(first);
    expect(r.all()).toHaveLength(1);
  });
});
