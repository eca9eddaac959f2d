import { describe, expect, it } from 'vitest';
import { SimStore } from '../../src/sim/store.js';
import { SimApiError } from '../../src/sim/api.js';
import { NAMESPACES, PODS, DEPLOYMENTS, pod } from './sim-helpers.js';

function fresh(opts = {}): SimStore {
  const s = new SimStore(opts);
  s.create(NAMESPACES, { metadata: { name: 'default' } });
  return s;
}

function statusOf(fn: () => unknown): SimApiError['status'] {
  try { fn(); } catch (e) { if (e instanceof SimApiError) return e.status; throw e; }
  throw new Error('expected a SimApiError');
}

describe('SimStore', () => {
  it('bumps one global resourceVersion on every change, shared by all resources', () => {
    const s = fresh();
    const r0 = s.currentRevision();
    const a = s.create(PODS, pod('a'));
    const d = s.create(DEPLOYMENTS, { metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } });
    expect(Number(a.metadata.resourceVersion)).toBe(r0 + 1);
    expect(Number(d.metadata.resourceVersion)).toBe(r0 + 2);
    expect(s.currentRevision()).toBe(r0 + 2);
  });

  it('fills uid, creationTimestamp and generation and keeps them across updates', () => {
    const s = fresh();
    const d = s.create(DEPLOYMENTS, { metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } });
    expect(d.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(d.metadata.generation).toBe(1);
    const u = s.update(DEPLOYMENTS, { ...d, spec: { replicas: 2 } });
    expect(u.metadata.generation).toBe(2);
    expect(u.metadata.uid).toBe(d.metadata.uid);
    const st = s.update(DEPLOYMENTS, { ...u, status: { replicas: 2 } });
    expect(st.metadata.generation).toBe(2);
  });

  it('treats a no-op update as nothing: no revision bump, no event', () => {
    const s = fresh();
    const a = s.create(PODS, pod('a'));
    const rv = s.currentRevision();
    const events: unknown[] = [];
    s.watch(s.resolve(PODS), { onChange: (c) => events.push(c) });
    const same = s.update(PODS, JSON.parse(JSON.stringify(a)));
    expect(same.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    expect(s.currentRevision()).toBe(rv);
    expect(events).toHaveLength(0);
  });

  it('answers 409 Conflict with the exact message for a stale resourceVersion', () => {
    const s = fresh();
    const a = s.create(PODS, pod('x'));
    s.update(PODS, { ...a, metadata: { ...a.metadata, labels: { v: '2' } } });
    const st = statusOf(() => s.update(PODS, { ...a, metadata: { ...a.metadata, labels: { v: '3' } } }));
    expect(st).toMatchObject({ code: 409, reason: 'Conflict', status: 'Failure', details: { name: 'x', kind: 'pods' } });
    expect(st.message).toBe('Operation cannot be fulfilled on pods "x": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('answers AlreadyExists, NotFound and a missing namespace with kube messages', () => {
    const s = fresh();
    s.create(PODS, pod('x'));
    expect(statusOf(() => s.create(PODS, pod('x')))).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'pods "x" already exists' });
    expect(statusOf(() => s.delete(PODS, 'default', 'nope'))).toMatchObject({ code: 404, reason: 'NotFound', message: 'pods "nope" not found', details: { name: 'nope', kind: 'pods' } });
    expect(statusOf(() => s.create(PODS, pod('y', { namespace: 'ghost' })))).toMatchObject({ code: 404, message: 'namespaces "ghost" not found' });
    expect(statusOf(() => s.delete(DEPLOYMENTS, 'default', 'd'))).toMatchObject({ message: 'deployments.apps "d" not found', details: { group: 'apps', kind: 'deployments' } });
  });

  it('validates names with 422 Invalid and supports generateName', () => {
    const s = fresh();
    const st = statusOf(() => s.create(PODS, pod('Bad_Name')));
    expect(st.code).toBe(422);
    expect(st.message).toMatch(/^Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    const g = s.create(PODS, { metadata: { generateName: 'web-', namespace: 'default' } });
    expect(g.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
  });

  it('returns the deleted object carrying the deletion resourceVersion', () => {
    const s = fresh();
    const a = s.create(PODS, pod('a'));
    const d = s.delete(PODS, 'default', 'a');
    expect(Number(d.metadata.resourceVersion)).toBe(Number(a.metadata.resourceVersion) + 1);
    expect(s.get(PODS, 'default', 'a')).toBeUndefined();
  });

  it('rebuilds a collection as it was at a past revision from history', () => {
    const s = fresh();
    s.create(PODS, pod('a'));
    s.create(PODS, pod('b'));
    const rv = s.currentRevision();
    s.delete(PODS, 'default', 'a');
    s.create(PODS, pod('c'));
    const b = s.get(PODS, 'default', 'b')!;
    s.update(PODS, { ...b, metadata: { ...b.metadata, labels: { changed: 'yes' } } });
    const snap = s.snapshot(s.resolve(PODS), rv);
    expect(snap.keys).toEqual(['default/a', 'default/b']);
    expect(snap.objects[1].obj.metadata.labels).toBeUndefined();
    expect(s.snapshot(s.resolve(PODS), s.currentRevision()).keys).toEqual(['default/b', 'default/c']);
  });

  it('bounds history by count and by age and compacts on demand', () => {
    let now = 1_000_000;
    const s = new SimStore({ historyEvents: 5, historyMs: 1000, now: () => now });
    s.create(NAMESPACES, { metadata: { name: 'default' } });
    for (let i = 0; i < 8; i++) s.create(PODS, pod(`p${i}`));
    expect(s.history.size).toBe(5);
    expect(s.history.compactedRevision).toBe(s.currentRevision() - 5);
    now += 2000;
    s.create(PODS, pod('late'));
    expect(s.history.size).toBe(1);
    s.compact();
    expect(s.history.size).toBe(0);
    expect(s.history.compactedRevision).toBe(s.currentRevision());
  });

  it('hands out copies: changing an object returned by create, update, get or list changes nothing stored', () => {
    const s = fresh();
    const created = s.create(PODS, pod('a', { labels: { app: 'web' } }));
    const json = s.getStored(s.resolve(PODS), 'default', 'a')!.json;
    created.metadata.labels!.app = 'changed';
    (created as any).spec = { mutated: true };
    const got = s.get(PODS, 'default', 'a')!;
    got.metadata.labels!.app = 'changed';
    s.list(PODS)[0].metadata.name = 'changed';
    const stored = s.getStored(s.resolve(PODS), 'default', 'a')!;
    expect(stored.json).toBe(json);
    expect(stored.meta.labels).toEqual({ app: 'web' });
    expect(s.get(PODS, 'default', 'a')!.metadata.labels).toEqual({ app: 'web' });
    const updated = s.update(PODS, { ...s.get(PODS, 'default', 'a')!, metadata: { ...s.get(PODS, 'default', 'a')!.metadata, labels: { app: 'v2' } } });
    updated.metadata.labels!.app = 'changed';
    expect(s.getStored(s.resolve(PODS), 'default', 'a')!.meta.labels).toEqual({ app: 'v2' });
    expect(s.get(PODS, 'default', 'a')!.metadata.labels).toEqual({ app: 'v2' });
  });

  it('keeps one JSON string per object version, shared by the table, the history and snapshots', () => {
    const s = fresh();
    s.create(PODS, pod('a'));
    const rv = s.currentRevision();
    const v1 = s.getStored(s.resolve(PODS), 'default', 'a')!;
    expect(JSON.parse(v1.json)).toEqual(s.get(PODS, 'default', 'a'));
    s.update(PODS, { ...s.get(PODS, 'default', 'a')!, metadata: { ...s.get(PODS, 'default', 'a')!.metadata, labels: { v: '2' } } });
    const change = s.history.since(rv)[0];
    expect(change.prev).toBe(v1);
    expect(change.cur).toBe(s.getStored(s.resolve(PODS), 'default', 'a'));
    expect(s.snapshot(s.resolve(PODS), rv).objects[0]).toBe(v1);
    s.delete(PODS, 'default', 'a');
    const deleted = s.history.since(rv).at(-1)!;
    expect(deleted.cur.meta).toBe(change.cur.meta);
    expect(JSON.parse(deleted.cur.json).metadata.resourceVersion).toBe(String(s.currentRevision()));
  });

  it('matches field selectors on the fields computed at write time', () => {
    const s = fresh();
    s.create(PODS, { ...pod('a'), spec: { nodeName: 'n1' }, status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] } });
    const a = s.getStored(s.resolve(PODS), 'default', 'a')!;
    expect(a.meta.fields).toMatchObject({ 'metadata.name': 'a', 'metadata.namespace': 'default', 'spec.nodeName': 'n1', 'status.phase': 'Running', 'status.podIP': '10.0.0.1', 'spec.hostNetwork': 'false' });
  });

  it('deleting a namespace deletes the objects in it', () => {
    const s = fresh();
    s.create(NAMESPACES, { metadata: { name: 'team' } });
    s.create(PODS, pod('a', { namespace: 'team' }));
    s.create(PODS, pod('b'));
    s.delete(NAMESPACES, undefined, 'team');
    expect(s.list(PODS).map((p) => p.metadata.name)).toEqual(['b']);
  });
});
