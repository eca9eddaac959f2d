// The Go heap model behind `cache-size`'s client-go column: each rule with a hand-computed size.
import { describe, expect, it } from 'vitest';
import { goAllocation, goCachedObjectBytes, goMapBytes, goValueBytes } from '../../src/informer/go-heap-estimate.js';

describe('goAllocation (Go size classes)', () => {
  it('rounds up to the size class; pointer-free allocations under 16 bytes are packed by the tiny allocator', () => {
    expect(goAllocation(0)).toBe(0);
    expect(goAllocation(33)).toBe(48);
    expect(goAllocation(264)).toBe(288);
    expect(goAllocation(5, true)).toBe(5);
    expect(goAllocation(5)).toBe(8);
    expect(goAllocation(20, true)).toBe(24);
  });
  it('takes whole 8 KiB pages above 32 KiB', () => {
    expect(goAllocation(40_000)).toBe(40_960);
  });
});

describe('goValueBytes (a JSON value in an interface{})', () => {
  it('a string is a boxed 16-byte header plus its bytes', () => {
    expect(goValueBytes('abc')).toBe(16 + 3);
    expect(goValueBytes('x'.repeat(20))).toBe(16 + 24);
    expect(goValueBytes('é')).toBe(16 + 2);
  });
  it('numbers 0..255, booleans and null allocate nothing; other numbers box 8 bytes', () => {
    expect([goValueBytes(5), goValueBytes(true), goValueBytes(null)]).toEqual([0, 0, 0]);
    expect([goValueBytes(1000), goValueBytes(1.5), goValueBytes(-1)]).toEqual([8, 8, 8]);
  });
  it('a slice is a boxed 24-byte header plus a backing array grown by doubling', () => {
    expect(goValueBytes([])).toBe(24);
    // 3 items: capacity 4 → 64 bytes of interfaces; each string 16 + 1.
    expect(goValueBytes(['a', 'b', 'c'])).toBe(24 + 64 + 3 * 17);
  });
  it('a map: a 48-byte header, one 264-byte group (288 class) up to 8 entries, a table beyond; keys cost their bytes', () => {
    expect(goMapBytes({})).toBe(48);
    expect(goMapBytes({ a: 1 })).toBe(48 + 288 + 1);
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, null]));
    // 9 entries: 16 slots (9 <= 14) = 2 groups = 528 bytes → 576 class; table header 32; directory 8.
    expect(goMapBytes(nine)).toBe(48 + 32 + 576 + 8 + 9 * 2);
  });
  it('a cached object adds the Unstructured wrapper and the store entry with its key', () => {
    expect(goCachedObjectBytes({}, 'ns/a')).toBe(8 + 48 + 37 + 4);
  });
});
