// Short fuzz tests of the watch decoder (seeded, so a failure replays): any split of the body decodes the
// same events; random bytes end in the decoder's own errors, never a crash; an endless line never grows
// past the bound.
import { describe, expect, it } from 'vitest';
import { ObjectTooLargeError, StreamCutError, WatchDecodeError } from '../../src/informer/errors.js';
import { decodeWatchStream } from '../../src/informer/watch-decoder.js';
import type { WatchEvent } from '../../src/informer/types.js';
import { randomObject, randomSplits, seeded } from './fuzz-helpers.js';

async function decodeAll(parts: Iterable<Uint8Array>, maxLineBytes?: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  async function* body() {
    yield* parts;
  }
  for await (const e of decodeWatchStream(body(), { maxLineBytes })) out.push(e);
  return out;
}

describe('watch decoder fuzz', () => {
  it('any split of a body — mid-line, mid-character — decodes to the same events', async () => {
    const random = seeded(14);
    for (let round = 0; round < 150; round++) {
      const events = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => ({ type: ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'][i % 4], object: randomObject(random, 3) }));
      const body = Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(random() < 0.5 ? '' : '\n'));
      const whole = await decodeAll([body]);
      const split = await decodeAll(randomSplits(body, random));
      expect(split).toEqual(whole);
      expect(whole.map((e) => e.type)).toEqual(events.map((e) => e.type));
    }
  });

  it('random bytes end in the decoder\'s own errors (or decode), never a crash, and no line passes the bound', async () => {
    const random = seeded(1414);
    for (let round = 0; round < 300; round++) {
      const bytes = Buffer.alloc(1 + Math.floor(random() * 2000));
      // Mostly JSON-ish bytes and newlines, so some lines parse and some nearly do.
      const alphabet = Buffer.from('{}[]":,\n\\ atypeobjectADDED0123é');
      for (let i = 0; i < bytes.length; i++) bytes[i] = random() < 0.7 ? alphabet[Math.floor(random() * alphabet.length)] : Math.floor(random() * 256);
      const maxLineBytes = 64 + Math.floor(random() * 512);
      const err = await decodeAll(randomSplits(bytes, random), maxLineBytes).then(() => undefined, (e: unknown) => e);
      if (err) expect([WatchDecodeError, StreamCutError, ObjectTooLargeError].some((t) => err instanceof t), String(err)).toBe(true);
      // Decoding to the end means no line was longer than the bound.
      else expect(Math.max(...bytes.toString('latin1').split('\n').map((l) => l.length))).toBeLessThanOrEqual(maxLineBytes);
    }
  });

  it('an endless line fails once it passes the bound, having read at most one chunk more', async () => {
    const random = seeded(7);
    for (let round = 0; round < 20; round++) {
      const maxLineBytes = 1 + Math.floor(random() * 100_000);
      let read = 0;
      async function* endless() {
        yield Buffer.from('{"type":"ADDED","object":{"x":"');
        for (;;) {
          const chunk = Buffer.alloc(1 + Math.floor(random() * 8192), 0x61);
          read += chunk.length;
          yield chunk;
        }
      }
      const run = (async () => {
        for await (const _ of decodeWatchStream(endless(), { maxLineBytes })) void _;
      })();
      await expect(run).rejects.toBeInstanceOf(ObjectTooLargeError);
      expect(read).toBeLessThanOrEqual(maxLineBytes + 8192);
    }
  });
});
