import { describe, expect, it } from 'vitest';
import { splitBody } from '../../src/endpoint/list-splitter.js';

const cut = (b: Buffer, size: number) => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

const list = {
  kind: 'PodList', apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'c"t}', remainingItemCount: 3 },
  items: [
    { metadata: { name: 'a', annotations: { x: '{"nested": [1, 2]}', 'y\\"': '\\' } }, spec: { list: [[], [{}], 'é☃'] } },
    { metadata: { name: 'b' }, data: { k: '],}{"items":[' } },
  ],
};

describe('splitBody', () => {
  it('finds the kind, the metadata and each item whole, however the body is cut and spaced', () => {
    for (const text of [JSON.stringify(list), JSON.stringify(list, null, 2), ` ${JSON.stringify(list, null, '\t')}\n`]) {
      const body = Buffer.from(text);
      for (const size of [1, 2, 3, 5, 7, 64, body.length]) {
        const split = splitBody(cut(body, size))!;
        expect(split.kind).toBe('PodList');
        expect(split.metadata).toEqual(list.metadata);
        expect(split.items!.map((b) => JSON.parse(b.toString('utf8')))).toEqual(list.items);
      }
    }
  });

  it('keeps an item that lies within one chunk as a view of it, and copies only one that straddles chunks', () => {
    const body = Buffer.from(JSON.stringify(list));
    const split = splitBody([body])!;
    expect(split.items!.every((b) => b.buffer === body.buffer)).toBe(true);
  });

  it('counts a Table\'s rows, treats "items": null as an empty list, and refuses a body that is not one whole object', () => {
    expect(splitBody([Buffer.from('{"kind":"Table","rows":[{"cells":[1]},{"cells":[2]}],"columnDefinitions":[{"name":"x"}]}')])).toEqual({ kind: 'Table', rows: 2 });
    expect(splitBody([Buffer.from('{"kind":"PodList","items":null,"metadata":{}}')])).toEqual({ kind: 'PodList', metadata: {}, items: [] });
    expect(splitBody([Buffer.from('{"kind":"Pod","metadata":{"name":"x"}}')])).toEqual({ kind: 'Pod', metadata: { name: 'x' } });
    expect(splitBody([Buffer.from('{"kind":"PodList","items":[{"a":1}')])).toBeUndefined();
    expect(splitBody([Buffer.from('[1,2]')])).toBeUndefined();
    expect(splitBody([Buffer.from('not json')])).toBeUndefined();
    expect(splitBody([Buffer.from('{"a":1}{"b":2}')])).toBeUndefined();
  });
});
