import { describe, expect, it } from 'vitest';
import { ArrayQueue } from '../../src/informer/array-queue.js';

describe('ArrayQueue', () => {
  it('pops in push order as the ring wraps and grows, interleaved with pushes', () => {
    const q = new ArrayQueue<number>(4);
    const model: number[] = [];
    let next = 0;
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < (round % 7) + 1; i++) {
        q.push(next);
        model.push(next++);
      }
      for (let i = 0; i < (round % 5) + 1; i++) expect(q.shift()).toBe(model.shift());
      expect(q.length).toBe(model.length);
      expect(q.toArray()).toEqual(model);
    }
    const seen: number[] = [];
    q.forEach((x) => seen.push(x));
    expect(seen).toEqual(model);
  });

  it('keeps order when the ring grows while wrapped around, and after it gives a large ring back', () => {
    const q = new ArrayQueue<number>(32);
    for (let i = 0; i < 12; i++) q.push(i);
    for (let i = 0; i < 9; i++) expect(q.shift()).toBe(i);
    // 3 left near the end of 16 slots: the next pushes wrap to the start, then grow the ring twice.
    for (let i = 12; i < 60; i++) q.push(i);
    expect(q.toArray()).toEqual(Array.from({ length: 51 }, (_, i) => i + 9));
    for (let i = 9; i < 60; i++) expect(q.shift()).toBe(i);
    expect(q.length).toBe(0);
    q.push(99);
    expect(q.shift()).toBe(99);
    expect(q.shift()).toBeUndefined();
  });

  it('shift on an empty queue gives undefined; clear empties it', () => {
    const q = new ArrayQueue<string>();
    expect(q.shift()).toBeUndefined();
    q.push('a');
    q.push('b');
    q.clear();
    expect(q.length).toBe(0);
    expect(q.shift()).toBeUndefined();
  });
});
