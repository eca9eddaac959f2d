// The LIST body decoder for bodies beyond V8's longest string: kube's watch cache answers the reflector's
// first list (resourceVersion=0) in full, so 100k realistic pods arrive as one ~650 MB body.
import { describe, expect, it } from 'vitest';
import { parseListBody, parseListBodyByItems, parseListBodyInChunks } from '../../src/kube/lister-watchers/list-body.js';
import { stripManagedFields } from '../../src/informer/transform.js';

const list = (items: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'c' }, items, ...extra });
const tricky = [
  { metadata: { name: 'a', annotations: { x: 'brackets ] } [ { in a string', q: 'quote \\" and backslash \\\\', items: '"items":[' } } },
  { metadata: { name: 'ü-ñ-✓-😀' }, spec: { containers: [{ args: ['[', ']', '{', '}'] }], nested: [[1, 2], [{ a: [] }]] } },
  { metadata: { name: 'c' }, status: {} },
];

describe('parseListBodyByItems', () => {
  it('gives what JSON.parse gives, for items with brackets, quotes, escapes and multi-byte characters in strings', () => {
    for (const body of [list(tricky), list([]), list(tricky, { after: { items: [1] } }), { items: tricky, kind: 'PodList', metadata: {} }]) {
      const buf = Buffer.from(JSON.stringify(body));
      expect(parseListBodyByItems(buf)).toEqual(body);
      const pretty = Buffer.from(JSON.stringify(body, null, 2));
      expect(parseListBodyByItems(pretty)).toEqual(body);
    }
  });

  it('rejects a truncated body and a body that is not JSON', () => {
    const buf = Buffer.from(JSON.stringify(list(tricky)));
    expect(() => parseListBodyByItems(buf.subarray(0, buf.length - 5))).toThrow(SyntaxError);
    expect(() => parseListBodyByItems(Buffer.from('<html>oops</html>'))).toThrow(SyntaxError);
  });

  it('parses small bodies in one piece through parseListBody', () => {
    expect(parseListBody(Buffer.from(JSON.stringify(list(tricky))))).toEqual(list(tricky));
  });
});

describe('parseListBodyInChunks', () => {
  const many = Array.from({ length: 40 }, (_, i) => ({ ...tricky[i % 3], metadata: { ...tricky[i % 3].metadata, name: `p${i}` } }));

  it('gives what JSON.parse gives when the items array is cut into many runs', () => {
    for (const body of [list(many), list([]), list(tricky)]) {
      for (const chunkBytes of [1, 100, 1000, 1 << 20]) {
        expect(parseListBodyInChunks(Buffer.from(JSON.stringify(body)), { chunkBytes })).toEqual(body);
        expect(parseListBodyInChunks(Buffer.from(JSON.stringify(body, null, 2)), { chunkBytes })).toEqual(body);
      }
    }
  });

  it('falls back to the exact scanner when a cut lands inside an item, or items is not the last field', () => {
    // Each item holds a nested array of objects whose first key is the items' first key: ',{"metadata":' inside items.
    const nested = Array.from({ length: 30 }, (_, i) => ({ metadata: { name: `s${i}` }, spec: { volumeClaimTemplates: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] } }));
    for (const chunkBytes of [1, 50, 333]) expect(parseListBodyInChunks(Buffer.from(JSON.stringify(list(nested))), { chunkBytes })).toEqual(list(nested));
    const itemsFirst = { items: many, kind: 'PodList', metadata: {} };
    expect(parseListBodyInChunks(Buffer.from(JSON.stringify(itemsFirst)), { chunkBytes: 10 })).toEqual(itemsFirst);
  });

  it('leaves out managedFields in every run when asked', () => {
    const withMf = many.map((p) => ({ ...p, metadata: { ...p.metadata, managedFields: [{ manager: 'm', fieldsV1: { 'k:{"a":"]"}': {} } }] } }));
    expect(parseListBodyInChunks(Buffer.from(JSON.stringify(list(withMf))), { chunkBytes: 200, omitManagedFields: true })).toEqual(list(withMf.map((p) => stripManagedFields(p as never))));
  });

  it('rejects a truncated body', () => {
    const buf = Buffer.from(JSON.stringify(list(many)));
    expect(() => parseListBodyInChunks(buf.subarray(0, buf.length - 5), { chunkBytes: 100 })).toThrow(SyntaxError);
  });
});

describe('parseListBodyByItems on items that are not objects', () => {
  it('refuses scalar and string items rather than dropping them', () => {
    expect(() => parseListBodyByItems(Buffer.from(JSON.stringify(list([{ a: 1 }, 2]))))).toThrow(/unexpected scalar/);
    expect(() => parseListBodyByItems(Buffer.from(JSON.stringify(list(['s', { a: 1 }]))))).toThrow(/unexpected scalar/);
    expect(parseListBodyByItems(Buffer.from(JSON.stringify(list([[1, 2], { a: [] }]))))).toEqual(list([[1, 2], { a: [] }]));
  });
});
