// Short fuzz tests of the list-body reading (seeded, so a failure replays): the size guard's verdict does
// not depend on how the body is split, it refuses exactly the lists with an item over the bound, and random
// bytes end in a parse error or the guard's error — never a crash, never unbounded reading.
import { describe, expect, it } from 'vitest';
import { ObjectTooLargeError } from '../../src/informer/errors.js';
import { parseListBody, parseListBodyByItems } from '../../src/kube/lister-watchers/list-body.js';
import { ListBodyGuard } from '../../src/kube/lister-watchers/list-body-guard.js';
import { randomObject, randomSplits, seeded } from '../informer/fuzz-helpers.js';

/** Feeds the pieces; returns the guard's error, if any. */
function guard(pieces: Iterable<Uint8Array>, max: number): unknown {
  const g = new ListBodyGuard(max, 'pods');
  try {
    for (const p of pieces) g.feed(p);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('list body fuzz', () => {
  it('the guard refuses a list exactly when one item is over the bound, however the body is split', () => {
    const random = seeded(2014);
    let refusals = 0;
    for (let round = 0; round < 150; round++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 8) }, () => randomObject(random, 4));
      const body = Buffer.from(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items }));
      const largest = Math.max(...items.map((i) => Buffer.byteLength(JSON.stringify(i))));
      // The envelope is small; a bound of the largest item is enough, one byte less is not (once the body outgrows it).
      const head = body.indexOf('"items":[') + '"items":['.length;
      const max = Math.max(largest, head);
      expect(guard(randomSplits(body, random), max)).toBeUndefined();
      expect(guard([body], max)).toBeUndefined();
      if (largest > head && body.length > largest - 1) {
        refusals++;
        expect(guard(randomSplits(body, random), largest - 1)).toBeInstanceOf(ObjectTooLargeError);
        expect(guard([body], largest - 1)).toBeInstanceOf(ObjectTooLargeError);
      }
      // What the guard lets through parses to the list sent, item by item too.
      expect(parseListBody(body).items).toEqual(items);
      expect(parseListBodyByItems(body).items).toEqual(items);
    }
    expect(refusals).toBeGreaterThan(100);
  });

  it('random bytes: the parsers throw SyntaxError (or parse), the guard only its own error — never a crash', () => {
    const random = seeded(77);
    const alphabet = Buffer.from('{}[]":,\\ itemsé0');
    for (let round = 0; round < 300; round++) {
      const bytes = Buffer.alloc(1 + Math.floor(random() * 3000));
      for (let i = 0; i < bytes.length; i++) bytes[i] = random() < 0.8 ? alphabet[Math.floor(random() * alphabet.length)] : Math.floor(random() * 256);
      const prefixed = random() < 0.5 ? Buffer.concat([Buffer.from('{"kind":"PodList","items":['), bytes]) : bytes;
      const err = guard(randomSplits(prefixed, random), 64 + Math.floor(random() * 1000));
      if (err) expect(err).toBeInstanceOf(ObjectTooLargeError);
      for (const parse of [parseListBody, parseListBodyByItems]) {
        try {
          parse(prefixed);
        } catch (e) {
          expect(e, String(e)).toBeInstanceOf(SyntaxError);
        }
      }
    }
  });

  it('an endless body — one item or no list at all — is refused within one chunk of the bound', () => {
    const random = seeded(3);
    for (const head of ['{"kind":"PodList","items":[{"metadata":{"name":"', '{"kind":"', '[[[[', 'garbage']) {
      const max = 1 + Math.floor(random() * 50_000);
      const g = new ListBodyGuard(max, 'pods');
      let fed = 0;
      const err = (() => {
        try {
          g.feed(Buffer.from(head));
          for (;;) {
            const chunk = Buffer.alloc(1 + Math.floor(random() * 4096), 0x61);
            fed += chunk.length;
            g.feed(chunk);
          }
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ObjectTooLargeError);
      expect(fed).toBeLessThanOrEqual(max + 4096);
    }
  });
});
