// A small deterministic PRNG (mulberry32) so the same seed always builds the same cluster.

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'; // kube's rand.String alphabet (no vowels, no 0/1/3)

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Like kube's utilrand.String: the suffixes of generated names. */
  name(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += NAME_ALPHABET[this.int(NAME_ALPHABET.length)];
    return s;
  }

  hex(length: number): string {
    let s = '';
    while (s.length < length) s += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, '0');
    return s.slice(0, length);
  }
}
