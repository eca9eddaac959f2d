// The LIST body decoder on the shapes a scanner gets wrong: kube's watch cache answers the reflector's first
// list (resourceVersion=0) in full, so 100k realistic pods arrive as one ~650 MB body, parsed as it arrives.
import { describe, expect, it } from 'vitest';
import { stripManagedFields } from '../../src/informer/transform.js';
import { ListBodyStream } from '../../src/kube/lister-watchers/list-body-stream.js';

const list = (items: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'c' }, items, ...extra });
const tricky = [
  { metadata: { name: 'a', annotations: { x: 'brackets ] } [ { in a string', q: 'quote \\" and backslash \\\\', items: '"items":[' } } },
  { metadata: { name: 'ü-ñ-✓-😀' }, spec: { containers: [{ args: ['[', ']', '{', '}'] }], nested: [[1, 2], [{ a: [] }]] } },
  { metadata: { name: 'c' }, status: {} },
];
const many = Array.from({ length: 40 }, (_, i) => ({ ...tricky[i % 3], metadata: { ...tricky[i % 3].metadata, name: `p${i}` } }));

/** Parsed in one feed, streamed from the first byte (runs of `runBytes`) or whole when `whole`. */
function parse(buf: Buffer, opts: { runBytes?: number; whole?: boolean; omitManagedFields?: boolean } = {}) {
  const s = new ListBodyStream({ maxObjectBytes: 1 << 30, what: 'pods', streamAfterBytes: opts.whole ? undefined : 0, runBytes: opts.runBytes, omitManagedFields: opts.omitManagedFields });
  s.feed(buf);
  return s.end();
}

describe('ListBodyStream on tricky lists', () => {
  it('gives what JSON.parse gives, compact or pretty, in runs of any size or whole', () => {
    for (const body of [list(tricky), list(many), list([]), list(tricky, { after: { items: [1] } }), { items: many, kind: 'PodList', metadata: {} }]) {
      for (const text of [JSON.stringify(body), JSON.stringify(body, null, 2)]) {
        for (const runBytes of [1, 100, 1000, 1 << 20]) expect(parse(Buffer.from(text), { runBytes })).toEqual(body);
        expect(parse(Buffer.from(text), { whole: true })).toEqual(body);
      }
    }
  });

  it('rejects a truncated body and a body that is not JSON', () => {
    const buf = Buffer.from(JSON.stringify(list(many)));
    for (const runBytes of [1, 100, 1 << 20]) expect(() => parse(buf.subarray(0, buf.length - 5), { runBytes })).toThrow(SyntaxError);
    expect(() => parse(Buffer.from('<html>oops</html>'))).toThrow(SyntaxError);
    expect(() => parse(Buffer.from('{"kind":"PodList","items":[{"a":1},]}'))).toThrow(SyntaxError);
    expect(() => parse(Buffer.from('{"kind":"PodList","items":[{"a":1}{"b":2}]}'))).toThrow(SyntaxError);
  });

  it('keeps items that are not objects for the shape check to report', () => {
    for (const items of [[{ a: 1 }, 2], ['s', { a: 1 }], [[1, 2], { a: [] }], [null]]) expect(parse(Buffer.from(JSON.stringify(list(items))))).toEqual(list(items));
  });

  it('leaves out managedFields in every run when asked', () => {
    const withMf = many.map((p) => ({ ...p, metadata: { ...p.metadata, managedFields: [{ manager: 'm', fieldsV1: { 'k:{"a":"]"}': {} } }] } }));
    for (const runBytes of [200, 1 << 20]) expect(parse(Buffer.from(JSON.stringify(list(withMf))), { runBytes, omitManagedFields: true })).toEqual(list(withMf.map((p) => stripManagedFields(p as never))));
  });
});
