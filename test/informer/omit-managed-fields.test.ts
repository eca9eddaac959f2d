import { describe, expect, it } from 'vitest';
import { cutManagedFields, parseOmittingManagedFields } from '../../src/informer/omit-managed-fields.js';
import { stripManagedFields } from '../../src/informer/transform.js';
import { decodeWatchStream } from '../../src/informer/watch-decoder.js';
import { ListBodyStream } from '../../src/kube/lister-watchers/list-body-stream.js';
import type { KubeObject } from '../../src/informer/types.js';

// managedFields as kube writes them: keys with escaped quotes and braces inside strings.
const managedFields = [
  {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-26T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} }, 'k:{"type":"]}["}': {} } } },
    subresource: 'status',
  },
];
const lastApplied = JSON.stringify({ metadata: { name: 'p', managedFields: [{ manager: 'x' }] }, note: 'a \\ backslash and "managedFields":[ in text' });
const pod = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'ns', resourceVersion: '7', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied, 'ünïcödé': '✓ 日本' }, managedFields },
  spec: { nodeName: 'n1' },
  ...extra,
});
const eventObject = (e: { object: KubeObject }) => [e.object];
const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));

describe('leaving managedFields out while decoding', () => {
  it('gives exactly what parsing everything and then stripping gives, for a watch event line', () => {
    const event = { type: 'MODIFIED', object: pod('a') };
    const parsed = parseOmittingManagedFields(bytes(event), eventObject);
    expect(parsed).toEqual({ type: 'MODIFIED', object: stripManagedFields(pod('a')) });
    expect(parsed.object.metadata).not.toHaveProperty('managedFields');
    // The annotation that mentions managedFields (escaped, inside a string) is untouched.
    expect(parsed.object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBe(lastApplied);
  });

  it('drops managedFields wherever metadata holds it, keeping the other keys in their order', () => {
    // The apiserver writes it last; a proxy or a recording may not.
    for (const metadata of [
      { name: 'a', namespace: 'ns', managedFields },
      { managedFields, name: 'a', namespace: 'ns' },
      { name: 'a', managedFields, namespace: 'ns' },
    ]) {
      const parsed = parseOmittingManagedFields(bytes({ type: 'MODIFIED', object: { kind: 'Pod', metadata } }), eventObject);
      expect(Object.keys(parsed.object.metadata)).toEqual(['name', 'namespace']);
      expect(parsed.object.metadata).toEqual({ name: 'a', namespace: 'ns' });
    }
  });

  it('never decodes the cut bytes, and counts one cut per object', () => {
    const cut = cutManagedFields(bytes({ type: 'ADDED', object: pod('a') }))!;
    expect(cut.cuts).toBe(1);
    expect(cut.text).toContain('"managedFields":null');
    expect(cut.text).not.toContain('kubelet');
    expect(cutManagedFields(bytes({ type: 'ADDED', object: { metadata: { name: 'x' } } }))).toBeUndefined();
  });

  it('tells whether every cut array closed its object, and drops the placeholders exactly either way', () => {
    const last = { kind: 'Pod', metadata: { name: 'a', managedFields } };
    const first = { kind: 'Pod', metadata: { managedFields, name: 'b' } };
    expect(cutManagedFields(bytes({ items: [last, last] }))!.allLast).toBe(true);
    expect(cutManagedFields(bytes({ items: [last, first] }))!.allLast).toBe(false);
    expect(cutManagedFields(Buffer.from('{"metadata":{"managedFields":[1,2]} }'))!.allLast).toBe(true);
    expect(cutManagedFields(Buffer.from('{"metadata":{"managedFields":[1,2] }}'))!.allLast).toBe(false);
    for (const items of [[last, last], [last, first], [first, last]]) {
      const parsed = parseOmittingManagedFields(bytes({ items }), (l: { items: KubeObject[] }) => l.items);
      expect(parsed.items.map((o) => Object.keys(o.metadata))).toEqual(items.map((o) => Object.keys(o.metadata).filter((k) => k !== 'managedFields')));
    }
  });

  it('cuts the same from an object too big for the scratch memory (over 1 MiB: the JavaScript scanner) as from a small one', () => {
    const big = pod('big', { data: { blob: 'b'.repeat(1_200_000) } } as Partial<KubeObject>);
    const small = cutManagedFields(bytes({ type: 'ADDED', object: pod('small') }))!;
    const cut = cutManagedFields(bytes({ type: 'ADDED', object: big }))!;
    expect(cut.cuts).toBe(1);
    expect(JSON.parse(cut.text)).toEqual({ type: 'ADDED', object: { ...big, metadata: { ...big.metadata, managedFields: null } } });
    // The scratch the small one used is intact for the next text.
    expect(cutManagedFields(bytes({ type: 'ADDED', object: pod('small') }))).toEqual(small);
  });

  it('keeps a custom resource’s own managedFields field: a cut outside metadata falls back to the whole text', () => {
    const cr = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'f', managedFields }, spec: { managedFields: [{ keep: ['me'] }] } };
    const parsed = parseOmittingManagedFields(bytes({ type: 'ADDED', object: cr }), eventObject);
    expect(parsed.object).toEqual(cr);
  });

  it('strips every item of a list body, in one piece and item by item, and leaves the envelope alone', () => {
    const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'c' }, items: [pod('a'), pod('b'), pod('c', { metadata: { name: 'c', resourceVersion: '8' } })] };
    const expected = { ...list, items: list.items.map(stripManagedFields) };
    const parseList = (body: Buffer, opts: { omitManagedFields?: boolean; streamAfterBytes?: number }) => {
      const s = new ListBodyStream({ maxObjectBytes: 1 << 20, what: 'pods', runBytes: 16, ...opts });
      s.feed(body);
      return s.end();
    };
    expect(parseList(bytes(list), { omitManagedFields: true })).toEqual(expected);
    expect(parseList(bytes(list), { omitManagedFields: true, streamAfterBytes: 0 })).toEqual(expected);
    expect(parseList(bytes(list), {})).toEqual(list);
    expect(parseList(bytes(list), { streamAfterBytes: 0 })).toEqual(list);
  });

  it('decodes a watch stream without managedFields, and reports a malformed line with the parse error of the line as sent', async () => {
    const good = JSON.stringify({ type: 'ADDED', object: pod('a') });
    const bad = '{"type":"ADDED","object":{"metadata":{"managedFields":[{"a":1}],"name":}}}';
    let original = '';
    try {
      JSON.parse(bad);
    } catch (err) {
      original = (err as Error).message;
    }
    async function* body() {
      yield `${good}\n${good.slice(0, 100)}`;
      yield `${good.slice(100)}\n${bad}\n`;
    }
    const seen: KubeObject[] = [];
    const run = async () => {
      for await (const e of decodeWatchStream(body(), { omitManagedFields: true })) seen.push(e.object);
    };
    await expect(run()).rejects.toThrow(`unable to decode an event from the watch stream: ${original}`);
    expect(seen).toEqual([stripManagedFields(pod('a')), stripManagedFields(pod('a'))]);
  });
});
