// What the socket client keeps of a read (the body a stalled client has not taken yet) is memory of its own, not a
// slice of Node's shared Buffer pool: one kept slice holds its whole slab (64 kB on Node 24), which is what 2,000
// stalled watches held on Node 24 (issue 43).
import { describe, expect, it } from 'vitest';
import { ResponseParser } from '../../src/kube/http/response-parser.js';
import { ownedCopy } from '../../src/kube/http/owned-copy.js';

describe('ResponseParser body pieces', () => {
  for (const size of [10, 1000, 3000, 16 * 1024]) {
    it(`hands out a ${size}-byte body in a buffer of exactly its size`, () => {
      const parser = new ResponseParser('GET');
      const read = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`);
      const body = parser.read(read)!;
      expect(body.toString()).toBe('x'.repeat(size));
      expect(body.byteOffset).toBe(0);
      expect(body.buffer.byteLength).toBe(size);
    });
  }
});

describe('ownedCopy', () => {
  it('joins its parts into a buffer of their size that shares nothing with them', () => {
    const a = Buffer.from('abc');
    const b = Buffer.from('defg').subarray(1);
    const out = ownedCopy(a, b);
    expect(out.toString()).toBe('abcefg');
    expect(out.buffer.byteLength).toBe(6);
    a[0] = 0x7a;
    expect(out.toString()).toBe('abcefg');
    expect(ownedCopy().length).toBe(0);
  });
});
