// An object the endpoint sent a client, as the trace keeps it: its identity (key, resourceVersion, uid, owners) and the
// object itself for a write's diff or a recording. A wrong key or owner links a write to the wrong trigger; a diff
// made against an object with managedFields shows every write changing them.
import { describe, expect, it } from 'vitest';
import { decodedObject, ScannedObject } from '../../src/endpoint/sent-object.js';

const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'demo', resourceVersion: '7', uid: 'u-a', managedFields: [{ manager: 'kubectl' }], ownerReferences: [{ uid: 'u-owner' }] }, data: { note: 'café' } };
const { managedFields: _m, ...cmMeta } = cm.metadata;

describe('decodedObject', () => {
  it('reads the identity, and gives the object without managedFields, made once', () => {
    const o = decodedObject(cm);
    expect({ key: o.key, rv: o.rv, uid: o.uid, owners: o.owners }).toEqual({ key: 'demo/a', rv: '7', uid: 'u-a', owners: ['u-owner'] });
    expect(o.raw()).toBe(cm);
    expect(o.object()).toEqual({ ...cm, metadata: cmMeta });
    expect(o.object()).toBe(o.object());
    expect(cm.metadata.managedFields).toHaveLength(1);
  });

  it('has no key, resourceVersion or owners where the object names none (a Status, an object without metadata)', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
    const s = decodedObject(status);
    expect({ key: s.key, rv: s.rv, uid: s.uid, owners: s.owners }).toEqual({ key: undefined, rv: undefined, uid: undefined, owners: [] });
    expect(s.object()).toBe(status);
    const bare = { kind: 'Thing' };
    expect(decodedObject(bare).key).toBeUndefined();
    expect(decodedObject(bare).object()).toBe(bare);
    expect(decodedObject({ metadata: { name: 42 } }).key).toBeUndefined();
  });

  it('reads a resourceVersion that is not a string as its text, and an owner without a uid as ""', () => {
    const o = decodedObject({ metadata: { name: 'n', resourceVersion: 12, ownerReferences: [{ kind: 'Deployment' }, null, { uid: 'u1' }] } });
    expect(o.rv).toBe('12');
    expect(o.key).toBe('n');
    expect(o.owners).toEqual(['', '', 'u1']);
  });
});

describe('ScannedObject', () => {
  const bytes = Buffer.from(JSON.stringify(cm));

  it('gives the owners the scan read, the same on every call', () => {
    const o = new ScannedObject({ key: 'demo/a', rv: '7', ownersJson: JSON.stringify([{ uid: 'u1' }, { uid: 'u2' }]) }, bytes);
    expect(o.owners).toEqual(['u1', 'u2']);
    expect(o.owners).toEqual(['u1', 'u2']);
  });

  it('has no owners when the scan met none, and reads them from the object when the scan stopped before them', () => {
    expect(new ScannedObject({ key: 'demo/a' }, bytes).owners).toEqual([]);
    expect(new ScannedObject({ key: 'demo/a', ownersUnread: true }, bytes).owners).toEqual(['u-owner']);
    expect(new ScannedObject({ key: 'x', ownersUnread: true }, Buffer.from('{"kind":"Thing"}')).owners).toEqual([]);
  });

  it('reads the owners of a watch line the scan stopped before from the line itself, borrowed or kept, UTF-8 intact', () => {
    const meta = { name: 'a', namespace: 'demo', uid: 'u-a', resourceVersion: '7', annotations: { note: 'café' }, ownerReferences: [{ uid: 'u-ü' }, { kind: 'Deployment' }] };
    const chunk = Buffer.from(`xx${JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', metadata: { ...meta, managedFields: [{ manager: 'm' }] } } })}\n`);
    const borrowed = new ScannedObject({ key: 'demo/a', rv: '7', ownersUnread: true }, chunk.subarray(2), 'object', true);
    expect(borrowed.owners).toEqual(['u-ü', '']);
    const kept = new ScannedObject({ key: 'demo/a', rv: '7', ownersUnread: true }, chunk.subarray(2), 'object', true).keep();
    chunk.fill(0x20);
    expect(kept.owners).toEqual(['u-ü', '']);
    expect(kept.raw()).toMatchObject({ kind: 'Pod', metadata: meta });
    // None in the line; and owners written after managedFields, found in the object decoded.
    expect(new ScannedObject({ key: 'x', ownersUnread: true }, Buffer.from('{"type":"ADDED","object":{"metadata":{"name":"x"}}}'), 'object').owners).toEqual([]);
    const late = Buffer.from(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x', managedFields: [], ownerReferences: [{ uid: 'late' }] } } }));
    expect(new ScannedObject({ key: 'x', ownersUnread: true }, late, 'object').owners).toEqual(['late']);
  });

  it('decodes the object, or the member of a watch line, once asked; without managedFields for diffs', () => {
    const line = Buffer.from(JSON.stringify({ type: 'MODIFIED', object: cm }));
    const o = new ScannedObject({ key: 'demo/a' }, line, 'object');
    expect(o.raw()).toEqual(cm);
    expect(o.object()).toEqual({ ...cm, metadata: cmMeta });
    expect(o.object()).toBe(o.object());
  });

  it('keeps a borrowed line as its own copy, UTF-8 intact, also after it was decoded', () => {
    const chunk = Buffer.from(JSON.stringify(cm));
    const o = new ScannedObject({ key: 'demo/a' }, chunk, undefined, true);
    expect(o.keep()).toBe(o);
    chunk.fill(0x20);
    expect(o.raw()).toEqual(cm);
    const decodedFirst = new ScannedObject({ key: 'demo/a' }, Buffer.from(JSON.stringify(cm)), undefined, true);
    expect(decodedFirst.raw()).toEqual(cm);
    expect(decodedFirst.keep().raw()).toEqual(cm);
  });
});
