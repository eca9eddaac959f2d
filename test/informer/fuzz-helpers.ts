// Deterministic randomness for the fuzz tests: a seeded generator, random JSON-able objects with the
// characters that trip scanners (quotes, backslashes, brackets in strings, multi-byte text), random splits.
import { seededRandom } from '../../src/informer/seeded-random.js';

/** The seeded PRNG the informer replays with (mulberry32), returning [0, 1). */
export const seeded = seededRandom;

const PIECES = ['a', 'items', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'é', '✓', '😀', '\n', '\\"', '"items":[', 'metadata'];

export function randomString(random: () => number): string {
  let s = '';
  const n = Math.floor(random() * 12);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(random() * PIECES.length)];
  return s;
}

export function randomValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth <= 0 || r < 0.3) return r < 0.1 ? Math.floor(random() * 1e6) : r < 0.15 ? random() < 0.5 : r < 0.17 ? null : randomString(random);
  if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth - 1));
  return randomObject(random, depth - 1);
}

export function randomObject(random: () => number, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = { metadata: { name: randomString(random), resourceVersion: String(Math.floor(random() * 1000)) } };
  const n = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) o[random() < 0.2 ? 'items' : randomString(random)] = randomValue(random, depth);
  return o;
}

/** The bytes cut at random places (pieces of 1 to 64 bytes, often in the middle of a character). */
export function* randomSplits(buf: Buffer, random: () => number): Generator<Buffer> {
  let at = 0;
  while (at < buf.length) {
    const n = 1 + Math.floor(random() * 64);
    yield buf.subarray(at, at + n);
    at += n;
  }
}
