// The LIST body decoder for bodies beyond V8's longest string: kube's watch cache answers the reflector's
// first list (resourceVersion=0) in full, so 100k realistic pods arrive as one ~650 MB body.
import { describe, expect, it } from 'vitest';
import { parseListBody, parseListBodyByItems } from '../../src/kube/list-body.js';

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
