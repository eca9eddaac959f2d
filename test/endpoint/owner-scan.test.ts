// A watch event's owner references, read from its line only when a write asks for them (the event's scan stops at
// its identity): wrong owners would link a write to the wrong trigger.
import { describe, expect, it } from 'vitest';
import { eventOwnerReferencesJson } from '../../src/endpoint/owner-scan.js';

const line = (metadata: Record<string, unknown>) => Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', metadata, spec: {} } })}\n`);

describe('eventOwnerReferencesJson', () => {
  it('gives the owner references as sent, past the labels and annotations before them, and none when there are none', () => {
    const refs = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1' }, { uid: 'u-2' }];
    const kubeOrder = { name: 'a', namespace: 'demo', uid: 'uid-a', resourceVersion: '5', labels: { app: 'a' }, annotations: { note: '{"ownerReferences":[]}' }, ownerReferences: refs, managedFields: [{ manager: 'm' }] };
    expect(JSON.parse(eventOwnerReferencesJson(line(kubeOrder))!)).toEqual(refs);
    const { ownerReferences: _o, managedFields: _m, ...none } = kubeOrder;
    expect(eventOwnerReferencesJson(line(none))).toBeNull();
    expect(eventOwnerReferencesJson(Buffer.from('{"type":"ADDED","object":{"kind":"Thing"}}'))).toBeNull();
  });

  it('does not say when the bytes do not: managedFields first (owners may follow it outside kube\'s order), no object, not JSON', () => {
    expect(eventOwnerReferencesJson(line({ name: 'a', managedFields: [{ manager: 'm' }] }))).toBeUndefined();
    expect(eventOwnerReferencesJson(line({ name: 'a', managedFields: [{ manager: 'm' }], ownerReferences: [{ uid: 'late' }] }))).toBeUndefined();
    expect(eventOwnerReferencesJson(Buffer.from('{"type":"BOOKMARK"}'))).toBeUndefined();
    expect(eventOwnerReferencesJson(Buffer.from('{"type":"ADDED","object":{"metadata":{"name":"a",'))).toBeUndefined();
  });
});
