import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listHead, splitBody } from '../../src/endpoint/list-splitter.js';

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

  it('finds items of every size however the body is cut: in chunks small and large, an item across many of them', () => {
    // Items from a few bytes to past the 1 MB the scanner's memory takes at once, with strings that look like the end.
    const items = [1, 300, 70_000, 1_100_000, 5, 40].map((n, i) => ({ metadata: { name: `p${i}`, annotations: { a: `"}]\\${'x'.repeat(n)}` } }, data: [{ k: '}' }] }));
    const body = Buffer.from(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '1' }, items, more: { x: [1] } }));
    for (const size of [997, 65_536, 1_050_000, body.length]) {
      const split = splitBody(cut(body, size))!;
      expect(split.items!.map((b) => JSON.parse(b.toString('utf8'))), String(size)).toEqual(items);
    }
    // An item whose end lies in an earlier chunk than the one it is found in: what follows it there is read too.
    const two = Buffer.from(JSON.stringify({ kind: 'PodList', items: [{ a: 'y'.repeat(5000) }, { b: 1 }, { c: 'z'.repeat(50) }] }));
    for (let size = 1; size < 200; size += 19) expect(splitBody(cut(two, size))!.items!.map((b) => JSON.parse(b.toString('utf8'))), String(size)).toEqual([{ a: 'y'.repeat(5000) }, { b: 1 }, { c: 'z'.repeat(50) }]);
    // An item that never ends is no list.
    expect(splitBody(cut(Buffer.from(`{"kind":"PodList","items":[{"a":"${'q'.repeat(3000)}"`), 100))).toBeUndefined();
  });

  it('keeps an item that lies within one chunk as a view of it, and copies only one that straddles chunks', () => {
    const body = Buffer.from(JSON.stringify(list));
    const split = splitBody([body])!;
    // A view of the body's own bytes (small buffers share Node's pool: the offset tells a view from a copy).
    expect(split.items!.every((b) => b.buffer === body.buffer && b.byteOffset > body.byteOffset && b.byteOffset + b.length < body.byteOffset + body.length)).toBe(true);
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

  it('takes items only from the top-level "items" array, not from another array before or after it', () => {
    const body = '{"kind":"PodList","extra":[{"name":"before"}],"items":[{"name":"a"},{"name":"b"}],"more":[{"name":"after"}],"rows":"x"}';
    for (const size of [1, 4, body.length]) {
      const split = splitBody(cut(Buffer.from(body), size))!;
      expect(split.items!.map((b) => b.toString('utf8')), String(size)).toEqual(['{"name":"a"}', '{"name":"b"}']);
      expect(split.rows).toBeUndefined();
    }
    // A member named "items" inside an item, or a string value "items", is not the list.
    expect(splitBody([Buffer.from('{"kind":"items","metadata":{"items":[{"x":1}]},"data":{"items":[{"y":2}]}}')])).toEqual({ kind: 'items', metadata: { items: [{ x: 1 }] } });
    // Rows are counted at the Table's own level only: objects inside a row are not rows.
    expect(splitBody([Buffer.from('{"kind":"Table","rows":[{"cells":[{"a":{}}],"object":{"metadata":{}}},{"cells":[]}]}')])).toEqual({ kind: 'Table', rows: 2 });
  });

  it('keeps only a kind that is a string and metadata that is an object', () => {
    expect(splitBody([Buffer.from('{"kind":5,"metadata":[1,2],"items":[]}')])).toStrictEqual({ items: [] });
    expect(splitBody([Buffer.from('{"kind":null,"metadata":"m"}')])).toStrictEqual({});
    expect(splitBody([Buffer.from('{"kind":"X","metadata":null}')])).toStrictEqual({ kind: 'X' });
    expect(splitBody([Buffer.from('{"metadata":{"resourceVersion":"3"},"kind":"PodList"}')])).toStrictEqual({ kind: 'PodList', metadata: { resourceVersion: '3' } });
    // A list has items and no rows; a Table rows and no items.
    expect(splitBody([Buffer.from('{"kind":"PodList","items":[{"a":1}]}')])).toStrictEqual({ kind: 'PodList', items: [Buffer.from('{"a":1}')] });
    expect(splitBody([Buffer.from('{"kind":"Table","rows":[{"a":1}]}')])).toStrictEqual({ kind: 'Table', rows: 1 });
  });

  it('refuses what is not one whole JSON object: a stray closer, an open string or object, a bare value, nothing', () => {
    for (const text of ['}{"a":{}', ']{"kind":"X"}', '{"a":1}"x', '{"kind":"Pod', '{"a":{"b":1}', '"x"', '5', '', '{"metadata":{"a":tru}}']) {
      expect(splitBody(cut(Buffer.from(text), 2)), text).toBeUndefined();
    }
    expect(splitBody([])).toBeUndefined();
  });

  it('takes only objects as items or rows, and only from an array', () => {
    expect(splitBody([Buffer.from('{"kind":"PodList","items":[[{"a":1}],{"b":2},"c",3]}')])).toStrictEqual({ kind: 'PodList', items: [Buffer.from('{"b":2}')] });
    expect(splitBody([Buffer.from('{"kind":"Table","rows":[[{"a":1}],{"b":2},[]]}')])).toStrictEqual({ kind: 'Table', rows: 1 });
    expect(splitBody([Buffer.from('{"kind":"PodList","items":{"x":{"a":1}}}')])).toStrictEqual({ kind: 'PodList', items: [] });
    expect(splitBody([Buffer.from('{"kind":"Table","rows":{"x":{"a":1}}}')])).toStrictEqual({ kind: 'Table' });
  });

  it('reads a body whose first member name is empty', () => {
    const body = Buffer.from('{"":"x","kind":"PodList","items":[{"a":1}]}');
    for (const size of [1, 3, body.length]) expect(splitBody(cut(body, size)), String(size)).toStrictEqual({ kind: 'PodList', items: [Buffer.from('{"a":1}')] });
  });

  it('counts, without taking them, exactly the items it would take, however the body is cut', () => {
    const big = [1, 300, 70_000, 1_100_000, 5, 40].map((n, i) => ({ metadata: { name: `p${i}` }, data: { a: `"}]\\${'x'.repeat(n)}` } }));
    const bodies = [
      JSON.stringify(list), JSON.stringify(list, null, 2), JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '1' }, items: big }),
      JSON.stringify({ kind: 'PodList', items: [{ a: 'y'.repeat(5000) }, { b: 1 }, { c: 'z'.repeat(50) }] }),
      '{"kind":"PodList","extra":[{"name":"before"}],"items":[{"name":"a"},{"name":"b"}],"more":[{"name":"after"}]}',
      '{"kind":"PodList","items":[[{"a":1}],{"b":2},"c",3]}', '{"kind":"PodList","items":null,"metadata":{}}', '{"kind":"PodList","items":[]}',
      '{"kind":"Table","rows":[{"cells":[1]},{"cells":[2]}]}', '{"kind":"Pod","metadata":{"name":"x"}}', '{"kind":"PodList","items":[{"a":1}',
    ];
    for (const text of bodies) {
      const body = Buffer.from(text);
      for (const size of [...(body.length < 10_000 ? [1, 7] : []), 997, 65_536, 1_050_000, body.length]) {
        const taken = splitBody(cut(body, size));
        const { items, ...rest } = taken ?? {};
        const counted = splitBody(cut(body, size), true);
        expect(counted, `${text.slice(0, 40)} cut ${size}`).toStrictEqual(taken && { ...rest, ...(items ? { itemCount: items.length } : {}) });
      }
    }
  });

  it('listHead reads a list up to where its items begin, or on to its metadata when that comes after them', () => {
    const body = Buffer.from(JSON.stringify(list));
    const at = body.indexOf('"items"') + 10;
    // The rest need not even be JSON: it is not read.
    expect(listHead([body.subarray(0, at), Buffer.from('not read')])).toStrictEqual({ kind: 'PodList', metadata: list.metadata });
    for (const size of [1, 5, body.length]) expect(listHead(cut(body, size)), String(size)).toStrictEqual({ kind: 'PodList', metadata: list.metadata });
    const late = Buffer.from('{"kind":"PodList","items":[{"a":1},{"b":2}],"metadata":{"resourceVersion":"9"}}');
    for (const size of [3, late.length]) expect(listHead(cut(late, size))).toStrictEqual({ kind: 'PodList', metadata: { resourceVersion: '9' } });
    // A list with no metadata at all is read whole, and counted.
    expect(listHead([Buffer.from('{"kind":"PodList","items":[{"a":1},{"b":2}]}')])).toStrictEqual({ kind: 'PodList', itemCount: 2 });
    expect(listHead([Buffer.from('{"kind":"Table","metadata":{},"rows":[{"a":1}]}')])).toBeUndefined();
    expect(listHead([Buffer.from('{"kind":"PodList","items":[{"a":1}],"metadata":{"resourceVersion":"9"}')])).toBeUndefined();
    // A head whose kind or metadata is no JSON (a literal misspelled, a name unquoted) is none, not an exception.
    for (const bad of ['{"kind":"PodList","metadata":{"a":tru},"items":[{"x":1}', '{"kind":PodList,"metadata":{},"items":[']) {
      expect(listHead([Buffer.from(bad)]), bad).toBeUndefined();
      expect(splitBody([Buffer.from(`${bad}]}`)], true), bad).toBeUndefined();
    }
  });

  it('counts a Table\'s rows between items taken whole in the same chunk (the count shares the scanner\'s memory)', () => {
    // A second "items" array starts the list's items anew: these are the last ones. The objects after them are what a
    // stale copy in the scanner's memory would show where the items are (for one of the paddings).
    const tail = Array.from({ length: 40 }, () => ({ x: 1 }));
    for (let pad = 0; pad < 8; pad++) {
      const body = Buffer.from(`{"kind":"PodList${' '.repeat(pad)}","items":[{"z":1}],"rows":[{"r":"]"},{"r":2},{"r":3}],"items":[{"a":"x"},{"b":["}"]},{"c":3}],"tail":${JSON.stringify(tail)}}`);
      for (const size of [5, body.length]) {
        expect(splitBody(cut(body, size)), `${pad} ${size}`).toStrictEqual({
          kind: `PodList${' '.repeat(pad)}`, rows: 3, items: [Buffer.from('{"a":"x"}'), Buffer.from('{"b":["}"]}'), Buffer.from('{"c":3}')],
        });
      }
    }
  });

  it('counts a page of a million-byte chunk and more, item ends on every side of the scanner\'s bound, as it takes them', () => {
    // Items of ~1,000 bytes with escapes: a 2.5 MB chunk is counted in slices of 1 MB, the count carried across them.
    const items = Array.from({ length: 2500 }, (_, i) => ({ metadata: { name: `p${i}`, note: `\\"{[${'n'.repeat(i % 97)}` }, data: 'd'.repeat(900) }));
    const body = Buffer.from(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '7' }, items }));
    for (const shift of [0, 1, 17, 400]) {
      const shifted = Buffer.concat([Buffer.from(' '.repeat(shift)), body]);
      expect(splitBody([shifted], true), String(shift)).toStrictEqual({ kind: 'PodList', metadata: { resourceVersion: '7' }, itemCount: 2500 });
    }
  });

  it('counts with the JavaScript counter where WebAssembly is missing (node --jitless), with the same result', () => {
    const body = JSON.stringify({ ...list, items: [...list.items, ...list.items, { s: '\\' }] });
    // The built module, as the CLI runs it (npm test builds before it tests).
    const built = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'endpoint', 'list-splitter.js')).href;
    const script = `import(${JSON.stringify(built)}).then((m) => { const b = Buffer.from(process.argv[1]); const parts = [b.subarray(0, 90), b.subarray(90)]; process.stdout.write(JSON.stringify([typeof WebAssembly, m.splitBody(parts, true), m.splitBody([b], true)])); })`;
    const out = execFileSync(process.execPath, ['--jitless', '-e', script, body], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [wasm, cutInTwo, whole] = JSON.parse(out) as [string, unknown, unknown];
    expect(wasm).toBe('undefined');
    const expected = { kind: 'PodList', metadata: list.metadata, itemCount: 5 };
    expect(cutInTwo).toStrictEqual(expected);
    expect(whole).toStrictEqual(expected);
    expect(splitBody([Buffer.from(body)], true)).toStrictEqual(expected);
  });
});
