// A LIST page's items are held unread by the client's session and read only when something asks what the client
// holds (issue 43): what the user sees must not change. A write's diff is against the listed version, a stale write
// after a LIST is still flagged, an older unread page never overwrites what the client was sent after it, and the
// endpoint's unread pages stay under their bound.
import { describe, expect, it } from 'vitest';
import { ClientSession } from '../../src/endpoint/client-session.js';
import { HeldPages } from '../../src/endpoint/held-pages.js';
import { requestInfo } from '../../src/endpoint/request-info.js';
import { scanWatchEvent } from '../../src/endpoint/body-scan.js';
import { decodedObject } from '../../src/endpoint/sent-object.js';
import { WireTrace } from '../../src/endpoint/wire-trace.js';
import type { CapturedResponse } from '../../src/endpoint/response-capture.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';

const cm = (name: string, rv: string, data: Record<string, string> = { a: rv }) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: rv, uid: `uid-${name}`, managedFields: [{ manager: 'm' }] }, data });
/** A list page as it crossed the endpoint: its JSON cut into chunks of `size` bytes. */
const page = (items: object[], o: { rv?: string; size?: number } = {}): CapturedResponse => {
  const b = Buffer.from(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: o.rv ?? '100' }, items: items.map((it) => { const { kind: _k, apiVersion: _a, ...rest } = it as Record<string, unknown>; return rest; }) }));
  const size = o.size ?? b.length;
  const chunks: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) chunks.push(b.subarray(i, i + size));
  return { status: 200, contentType: 'application/json', bytes: b.length, chunks, body: b, aborted: false };
};
const answer = (status: number, body: object): CapturedResponse => {
  const b = Buffer.from(JSON.stringify(body));
  return { status, contentType: 'application/json', bytes: b.length, chunks: [b], body: b, aborted: false };
};
const event = (type: string, o: object) => scanWatchEvent(Buffer.from(`${JSON.stringify({ type, object: o })}\n`));

const list = requestInfo('GET', '/api/v1/namespaces/default/configmaps?limit=500');
const watch = requestInfo('GET', '/api/v1/namespaces/default/configmaps?watch=true');
const update = requestInfo('PUT', '/api/v1/namespaces/default/configmaps/c1');

function setup(heldPages?: HeldPages, subscribed = true) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  if (subscribed) tracer.subscribe((r) => records.push(r));
  return { trace: new WireTrace(tracer), s: new ClientSession('manager', 'manager/v0.0.0', undefined, heldPages), records };
}

describe('list pages held unread', () => {
  it('a write is diffed against the version the client listed, and the report counts it as changing that field', () => {
    const { trace, s, records } = setup();
    trace.read(s, list, page([cm('c0', '4'), cm('c1', '5', { a: 'listed' }), cm('c2', '6')], { size: 97 }));
    const base = trace.baseOf(s, update);
    // As listed: kube leaves kind and apiVersion off a list's items; managedFields are no part of a diff.
    expect(base).toEqual({ metadata: { name: 'c1', namespace: 'default', resourceVersion: '5', uid: 'uid-c1' }, data: { a: 'listed' } });
    trace.write(s, update, answer(200, cm('c1', '9', { a: 'written' })), { mode: 'apply', body: Buffer.from(JSON.stringify(cm('c1', '5', { a: 'written' }))), contentType: 'application/json', base, loopThreshold: 99 });
    expect(records.filter((r) => r.op === 'write')).toEqual([expect.objectContaining({ key: 'default/c1', old: { kind: 'ConfigMap', apiVersion: 'v1', ...base } })]);
    expect(trace.written.get('manager configmaps default/c1')).toMatchObject({ writes: 1, changing: 1, fields: new Set(['data.a']) });
  });

  it('a write from the listed resourceVersion, after a watch event sent a newer one, is still a stale write', () => {
    const { trace, s, records } = setup();
    trace.read(s, list, page([cm('c1', '5')]));
    trace.watchEvent(s, watch, event('MODIFIED', cm('c1', '7')));
    trace.staleWrite(s, update, Buffer.from(JSON.stringify(cm('c1', '5'))), 'application/json');
    expect(records.filter((r) => r.op === 'stale-write')).toEqual([expect.objectContaining({ key: 'default/c1', rv: '5', newest: '7' })]);
    // And one older than the listed version, with no event since: flagged against the page.
    trace.read(s, list, page([cm('c2', '8')]));
    trace.staleWrite(s, requestInfo('PUT', '/api/v1/namespaces/default/configmaps/c2'), Buffer.from(JSON.stringify(cm('c2', '3'))), 'application/json');
    expect(records.filter((r) => r.op === 'stale-write').at(-1)).toMatchObject({ key: 'default/c2', rv: '3', newest: '8' });
  });

  it('with no one tracing, reads only a page\'s head (its resourceVersion), and its items when asked', () => {
    const { trace, s } = setup(undefined, false);
    const p = page([cm('c0', '4'), cm('c1', '5', { a: 'listed' })], { rv: '77', size: 50 });
    expect(trace.read(s, list, p)).toBe('77');
    expect(trace.baseOf(s, update)).toMatchObject({ metadata: { resourceVersion: '5' }, data: { a: 'listed' } });
    // A body that breaks off after its head holds nothing.
    const { s: s2 } = setup(undefined, false);
    const cutShort = { ...p, chunks: p.chunks!.slice(0, 3) };
    expect(trace.read(s2, list, cutShort)).toBe('77');
    expect(trace.baseOf(s2, update)).toBeUndefined();
  });

  it('an older unread page never overwrites what the client was sent after it; a later page does', () => {
    const s = new ClientSession('c', 'c');
    // Pages of lists still in progress (each answered a continue token), so that none replaces another.
    const read = (objects: object[], collection = 'configmaps default') => ({ collection, next: `t${Math.random()}`, bytes: 10, count: objects.length, items: () => objects.map((o) => decodedObject(o as Record<string, unknown>)) });
    s.listed('configmaps', read([cm('a', '5'), cm('b', '5'), cm('c', '5'), cm('d', '5')]));
    s.event('configmaps', event('MODIFIED', cm('a', '7')), 0);
    s.event('configmaps', event('DELETED', cm('b', '8')), 0);
    s.sent('configmaps', decodedObject(cm('c', '9')), 'MODIFIED');
    // A later list sends d again, newer: it wins over the first page.
    s.listed('configmaps', read([cm('d', '10')]));
    expect(s.newest('configmaps', 'default/a')?.rv).toBe('7');
    expect(s.newest('configmaps', 'default/b')).toBeUndefined();
    expect(s.newest('configmaps', 'default/c')?.rv).toBe('9');
    expect(s.newest('configmaps', 'default/d')?.rv).toBe('10');
    // A page sent after an event wins over it.
    s.event('configmaps', event('MODIFIED', cm('e', '11')), 0);
    s.listed('configmaps', read([cm('e', '12')]));
    expect(s.newest('configmaps', 'default/e')?.rv).toBe('12');
    // Another resource's pages are not read to answer for this one's.
    let podsRead = 0;
    s.listed('pods', { ...read([]), count: 1, items: () => { podsRead++; return []; } });
    s.newest('configmaps', 'default/a');
    expect(podsRead).toBe(0);
    s.newest('pods', 'default/p');
    s.newest('pods', 'default/p');
    expect(podsRead).toBe(1);
  });

  it('a whole list of a collection replaces its earlier pages still unread, without reading them; a list broken off does not', () => {
    const held = new HeldPages();
    const s = new ClientSession('c', 'c', undefined, held);
    const reads: string[] = [];
    const pageOf = (name: string, objects: object[], o: { collection?: string; after?: string; next?: string } = {}) => ({
      collection: o.collection ?? 'configmaps default', after: o.after, next: o.next, bytes: 100, count: objects.length,
      items: () => { reads.push(name); return objects.map((x) => decodedObject(x as Record<string, unknown>)); },
    });
    // The first list, in two pages; another namespace's list.
    s.listed('configmaps', pageOf('1a', [cm('gone', '5'), cm('kept', '5')], { next: 'k1' }));
    s.listed('configmaps', pageOf('1b', [cm('other', '5')], { after: 'k1' }));
    s.listed('configmaps', pageOf('ns2', [cm('elsewhere', '5')], { collection: 'configmaps ns2' }));
    expect(held.bytes).toBe(300);
    // A second list of the first collection, broken off after its first page: nothing is replaced.
    s.listed('configmaps', pageOf('2a', [cm('kept', '6')], { next: 'k2' }));
    expect(held.bytes).toBe(400);
    // A third, whole (its last page is empty): the first list's pages and the broken one's go unread.
    s.listed('configmaps', pageOf('3a', [cm('kept', '7')], { next: 'k3' }));
    s.listed('configmaps', pageOf('3b', [cm('other', '7')], { after: 'k3', next: 'k4' }));
    s.listed('configmaps', pageOf('3c', [], { after: 'k4' }));
    expect(held.bytes).toBe(300);
    expect(s.newest('configmaps', 'default/kept')?.rv).toBe('7');
    expect(s.newest('configmaps', 'default/other')?.rv).toBe('7');
    // An object the new list no longer holds is no longer the client's; the other namespace's list stays.
    expect(s.newest('configmaps', 'default/gone')).toBeUndefined();
    expect(s.newest('configmaps', 'default/elsewhere')?.rv).toBe('5');
    expect(reads).toEqual(['ns2', '3a', '3b']);
  });

  it('reads the oldest pages once the endpoint holds more unread bytes than its bound, whichever client holds them', () => {
    const held = new HeldPages(25);
    const a = new ClientSession('a', 'a', undefined, held);
    const b = new ClientSession('b', 'b', undefined, held);
    const reads: string[] = [];
    const reader = (name: string, o: object, bytes = 10) => ({ collection: 'x', next: name, bytes, count: 1, items: () => { reads.push(name); return [decodedObject(o as Record<string, unknown>)]; } });
    a.listed('configmaps', reader('a1', cm('x', '1')));
    b.listed('configmaps', reader('b1', cm('y', '1')));
    expect(reads).toEqual([]);
    a.listed('configmaps', reader('a2', cm('x', '2')));
    // 30 bytes held: the oldest page is read, and what it held is the client's.
    expect(reads).toEqual(['a1']);
    expect(held.bytes).toBe(20);
    // Read in its place: a2, sent after it, still wins when asked.
    expect(a.newest('configmaps', 'default/x')?.rv).toBe('2');
    expect(reads).toEqual(['a1', 'a2']);
    expect(held.bytes).toBe(10);
    // One page past the bound alone is read at once.
    b.listed('pods', reader('b-big', cm('z', '3'), 40));
    expect(reads).toEqual(['a1', 'a2', 'b1', 'b-big']);
    expect(held.bytes).toBe(0);
    expect(b.newest('configmaps', 'default/y')?.rv).toBe('1');
  });
});

describe('the ledger of unread pages', () => {
  /** A page that, read, says so and releases itself from the ledger (as a client session's does) unless told not to. */
  const pageIn = (held: HeldPages, reads: string[], name: string, bytes: number, releases = true) => {
    const p = { bytes, readNow: () => { reads.push(name); if (releases) held.release(p); } };
    return p;
  };

  it('holds up to exactly its bound unread; one byte past it reads the oldest', () => {
    const held = new HeldPages(20);
    const reads: string[] = [];
    held.hold(pageIn(held, reads, 'a', 10));
    held.hold(pageIn(held, reads, 'b', 10));
    expect(reads).toEqual([]);
    expect(held.bytes).toBe(20);
    held.hold(pageIn(held, reads, 'c', 1));
    expect(reads).toEqual(['a']);
    expect(held.bytes).toBe(11);
  });

  it('forgets a page whose reader did not release it, so reading past the bound ends', () => {
    const held = new HeldPages(5);
    const reads: string[] = [];
    held.hold(pageIn(held, reads, 'a', 4, false));
    held.hold(pageIn(held, reads, 'b', 4, false));
    expect(reads).toEqual(['a']);
    expect(held.bytes).toBe(4);
  });

  it('a page released twice, or never held, counts once or not at all', () => {
    const held = new HeldPages(100);
    const reads: string[] = [];
    const a = pageIn(held, reads, 'a', 30);
    held.hold(a);
    held.hold(pageIn(held, reads, 'b', 20));
    held.release(a);
    held.release(a);
    held.release(pageIn(held, reads, 'never held', 7));
    expect(held.bytes).toBe(20);
    expect(reads).toEqual([]);
  });
});
