// The endpoint's byte-level JSON walk (src/endpoint/json-scan.ts) against what JSON.parse reads: every whitespace JSON
// allows, values at the very end of a buffer, member names with escapes or non-ASCII letters, and malformed objects
// refused with a JsonScanError that says what was expected (body-scan.test.ts covers the walk inside readBody).
import { describe, expect, it } from 'vitest';
import { closeOf, JsonScanError, KnownStrings, members, skipSpace, stringAt, valueEnd } from '../../src/endpoint/json-scan.js';

/** Every member of the object at `i`, read by the walk, with each value as JSON.parse reads its bytes. */
function walk(b: Buffer, i = 0): { end: number; seen: [string, unknown][] } {
  const seen: [string, unknown][] = [];
  const end = members(b, i, (k, s) => { const e = valueEnd(b, s); seen.push([k, JSON.parse(b.toString('utf8', s, e))]); return e; });
  return { end, seen };
}

describe('json-scan, whitespace and value ends', () => {
  it('skips every whitespace JSON allows (space, \\n, \\r, \\t) around names, colons, commas and values', () => {
    const text = '{\r\n\t"a"\t:\r1\r,\t"b" :\n[1\t,2\r,3\n]\t,\r"c":\t-2.5e3\r\n}';
    const b = Buffer.from(text);
    expect(JSON.parse(text)).toEqual({ a: 1, b: [1, 2, 3], c: -2500 });
    expect(walk(b)).toEqual({ end: b.length, seen: [['a', 1], ['b', [1, 2, 3]], ['c', -2500]] });
    expect(skipSpace(Buffer.from(' \r\n\tx'), 0)).toBe(4);
    expect(skipSpace(Buffer.from('  '), 0)).toBe(2);
  });

  it('ends a number, true, false or null at any delimiter, and at the end of the buffer', () => {
    for (const [text, end] of [['12]', 2], ['true}', 4], ['null,', 4], ['7 ', 1], ['7\n', 1], ['7\r', 1], ['7\t', 1], ['false', 5], ['-0.5', 4]] as const) {
      expect(valueEnd(Buffer.from(text), 0), text).toBe(end);
    }
    // A number as the last member: the walk ends at the brace, not past it.
    expect(walk(Buffer.from('{"n":12}'))).toEqual({ end: 8, seen: [['n', 12]] });
    expect(walk(Buffer.from('{"xs":[1,22]}')).seen).toEqual([['xs', [1, 22]]]);
  });

  it('refuses a value that is missing, with where', () => {
    expect(() => valueEnd(Buffer.from(',1'), 0)).toThrow(JsonScanError);
    expect(() => valueEnd(Buffer.from('}'), 0)).toThrow(/a value expected at byte 0/);
    expect(() => walk(Buffer.from('{"a":,"b":1}'))).toThrow(/a value expected at byte 5/);
  });
});

describe('json-scan, objects', () => {
  it('walks an empty object, with or without space inside', () => {
    expect(walk(Buffer.from('{}'))).toEqual({ end: 2, seen: [] });
    expect(walk(Buffer.from(' { \n } x'), 1)).toEqual({ end: 6, seen: [] });
  });

  it('refuses what is no object, or an object written wrong, saying what it expected', () => {
    expect(() => walk(Buffer.from('[1]'))).toThrow(/an object expected at byte 0/);
    expect(() => walk(Buffer.from('{a:1}'))).toThrow(/a member name expected at byte 1/);
    expect(() => walk(Buffer.from('{"a",1}'))).toThrow(/":" expected at byte 4/);
    expect(() => walk(Buffer.from('{"a":1 "b":2}'))).toThrow(/"," or "}" expected at byte 7/);
    expect(() => walk(Buffer.from('{"a":1]'))).toThrow(/"," or "}" expected at byte 6/);
    expect(() => walk(Buffer.from('{"a":1,}'))).toThrow(/a member name expected at byte 7/);
  });

  it('reads member names with escapes and non-ASCII letters as JSON.parse does', () => {
    const text = '{"n\\u0061me":1,"\\"q\\"":2,"é☃":3,"plain~":4}';
    expect(Object.entries(JSON.parse(text) as object)).toEqual([['name', 1], ['"q"', 2], ['é☃', 3], ['plain~', 4]]);
    expect(walk(Buffer.from(text)).seen).toEqual([['name', 1], ['"q"', 2], ['é☃', 3], ['plain~', 4]]);
  });
});

describe('json-scan, bodies cut short', () => {
  it('says what was left open, and where the bytes ran out', () => {
    expect(() => valueEnd(Buffer.from('"abc'), 0)).toThrow(/^unterminated string at byte 4$/);
    expect(() => valueEnd(Buffer.from('"ab\\"'), 0)).toThrow(/^unterminated string at byte 5$/);
    expect(() => closeOf(Buffer.from('{"a":1'), 1, 1)).toThrow(/^unterminated object or array at byte 6$/);
    expect(() => closeOf(Buffer.from('{"a":"b'), 1, 1)).toThrow(/^unterminated string at byte 7$/);
    expect(() => walk(Buffer.from('{"a":[1,2'))).toThrow(/^unterminated object or array at byte 9$/);
  });
});

describe('json-scan, strings', () => {
  it('reads a string value as JSON.parse does, escaped or not, and nothing for a value that is no string', () => {
    const b = Buffer.from('["plain","a\\"b\\\\c\\u00e9","ünï ☃",12,null,{"x":"y"}]');
    const values: (string | undefined)[] = [];
    for (let i = 1; i < b.length - 1;) {
      const e = valueEnd(b, i);
      values.push(stringAt(b, i, e));
      i = e + 1;
    }
    expect(values).toEqual(['plain', 'a"b\\cé', 'ünï ☃', undefined, undefined, undefined]);
  });
});

describe('KnownStrings', () => {
  const known = new KnownStrings(['ADDED', 'name', 'é']);

  it('recognises a known string only as a JSON string written whole, without escapes', () => {
    const b = Buffer.from('"ADDED" "name" "é" "nam" "names" "n\\u0061me"');
    const at = (s: string) => { const i = b.indexOf(s); return known.match(b, i, i + Buffer.byteLength(s)); };
    expect(at('"ADDED"')).toBe('ADDED');
    expect(at('"name"')).toBe('name');
    expect(at('"é"')).toBe('é');
    expect(at('"nam"')).toBeUndefined();
    expect(at('"names"')).toBeUndefined();
    expect(at('"n\\u0061me"')).toBeUndefined();
  });

  it('recognises nothing that does not start with a quote, nor a span too short to be a string', () => {
    // The right bytes between the ends, but not a JSON string.
    expect(known.match(Buffer.from('xnamex'), 0, 6)).toBeUndefined();
    expect(known.match(Buffer.from('{ADDED}'), 0, 7)).toBeUndefined();
    // An empty span, and one byte: no room for the quotes.
    expect(new KnownStrings(['']).match(Buffer.from('"'), 0, 1)).toBeUndefined();
    expect(new KnownStrings(['']).match(Buffer.from('""'), 0, 2)).toBe('');
    expect(new KnownStrings(['']).match(Buffer.from('x'), 0, 0)).toBeUndefined();
  });
});
