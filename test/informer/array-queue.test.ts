import { describe, expect, it } from 'vitest';
import { ArrayQueue } from '../../src/informer/array-queue.js';

describe('ArrayQueue', () => {
  it('pops in push order across compactions, interleaved with pushes', () => {
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
