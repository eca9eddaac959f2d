// The LIST body parsed while it arrives (seeded fuzz, so a failure replays): whatever the chunking — splits
// inside strings, escapes and multi-byte characters — it gives what JSON.parse of the whole body gives, throws
// when JSON.parse would, keeps the list's metadata before or after the items, and bounds each item.
import { describe, expect, it } from 'vitest';
import { ObjectTooLargeError } from '../../src/informer/errors.js';
import { stripManagedFields } from '../../src/informer/transform.js';
import type { KubeObject } from '../../src/informer/types.js';
import { ListBodyStream, type ListBodyStreamOptions } from '../../src/kube/lister-watchers/list-body-stream.js';
import { randomObject, randomSplits, seeded } from '../informer/fuzz-helpers.js';

/** Streams from the first byte (no whole-body shortcut), in runs of `runBytes`. */
function parse(pieces: Iterable<Uint8Array>, opts: Partial<ListBodyStreamOptions> = {}) {
  const s = new ListBodyStream({ maxObjectBytes: 1 << 30, what: 'pods', streamAfterBytes: 0, runBytes: 64, ...opts });
  for (const p of pieces) s.feed(p);
  return s.end();
}

/** What parse() gives or throws, as a value to compare. */
function outcome(pieces: Iterable<Uint8Array>, opts: Partial<ListBodyStreamOptions> = {}): unknown {
  try {
    return { page: parse(pieces, opts) };
  } catch (err) {
    return { error: (err as Error).constructor.name };
  }
}

function jsonOutcome(body: Buffer): unknown {
  try {
    return { page: JSON.parse(body.toString('utf8')) };
  } catch (err) {
    return { error: (err as Error).constructor.name };
  }
}

const list = (items: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'c', remainingItemCount: 3 }, items, ...extra });
const pod = (i: number, extra: Record<string, unknown> = {}) => ({ metadata: { name: `p${i}`, namespace: 'ns', managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': { 'k:{"type":"]"}': {} } } }] }, spec: { nodeName: `n${i % 3}`, containers: [{ name: 'c', args: ['[', ']', '{', '}', '"', '\\', 'é✓😀'] }] }, ...extra });
const randomList = (random: () => number, n: number) => list(Array.from({ length: n }, () => randomObject(random, 4)));

describe('ListBodyStream', () => {
  it('gives what JSON.parse gives, however the body is split (strings, escapes and UTF-8 cut anywhere)', () => {
    const random = seeded(1501);
    for (let round = 0; round < 200; round++) {
      const body = randomList(random, Math.floor(random() * 30));
      const text = round % 4 === 3 ? JSON.stringify(body, null, 2) : JSON.stringify(body);
      const buf = Buffer.from(text);
      const runBytes = 1 + Math.floor(random() * 400);
      expect(parse(randomSplits(buf, random), { runBytes })).toEqual(body);
    }
  });

  it('reads the list metadata whether it comes before or after the items', () => {
    const items = Array.from({ length: 50 }, (_, i) => pod(i));
    const after = { kind: 'PodList', items, apiVersion: 'v1', metadata: { resourceVersion: '7', continue: 'tok', remainingItemCount: 12 } };
    const before = list(items);
    for (const body of [after, before]) {
      for (const chunk of [1, 7, 100, 4096]) {
        const buf = Buffer.from(JSON.stringify(body));
        const pieces = Array.from({ length: Math.ceil(buf.length / chunk) }, (_, i) => buf.subarray(i * chunk, (i + 1) * chunk));
        const page = parse(pieces);
        expect(page).toEqual(body);
        expect(page.metadata).toEqual(body.metadata);
      }
    }
  });

  it('parses empty lists, null items and no items at all as JSON.parse does', () => {
    for (const body of [list([]), list([], { items: null }), { kind: 'PodList', metadata: { resourceVersion: '1' } }, { items: [], metadata: {} }]) {
      const buf = Buffer.from(JSON.stringify(body));
      expect(parse([buf])).toEqual(body);
      expect(parse(randomSplits(buf, seeded(5)))).toEqual(body);
      expect(parse([Buffer.from(JSON.stringify(body, null, 3))])).toEqual(body);
    }
  });

  it('parses items far larger than a run, and items that are not objects, exactly', () => {
    const huge = { metadata: { name: 'big' }, data: { blob: 'x"\\y'.repeat(50_000), nested: Array.from({ length: 2000 }, (_, i) => ({ metadata: { name: `n${i}` } })) } };
    const bodies = [list([pod(1), huge, pod(2), huge]), list([1, 's', null, [1, [2]], { a: 1 }, true])];
    for (const body of bodies) expect(parse(randomSplits(Buffer.from(JSON.stringify(body)), seeded(9)), { runBytes: 100 })).toEqual(body);
  });

  it('never cuts inside an item that nests objects with the items\' first key', () => {
    const nested = Array.from({ length: 60 }, (_, i) => ({ metadata: { name: `s${i}` }, spec: { volumeClaimTemplates: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] } }));
    for (const runBytes of [1, 50, 333, 5000]) expect(parse([Buffer.from(JSON.stringify(list(nested)))], { runBytes })).toEqual(list(nested));
  });

  it('leaves out metadata.managedFields only — a custom resource\'s own managedFields field stays', () => {
    const items: unknown[] = Array.from({ length: 40 }, (_, i) => pod(i));
    items[17] = { metadata: { name: 'cr' }, spec: { managedFields: ['mine'] } };
    const expected = list(items.map((p) => stripManagedFields(p as KubeObject)));
    for (const runBytes of [10, 300, 1 << 20]) {
      expect(parse(randomSplits(Buffer.from(JSON.stringify(list(items))), seeded(runBytes)), { runBytes, omitManagedFields: true })).toEqual(expected);
    }
    // The same through the whole-body path (a small body).
    const s = new ListBodyStream({ maxObjectBytes: 1 << 30, what: 'pods', omitManagedFields: true });
    s.feed(Buffer.from(JSON.stringify(list(items))));
    expect(s.end()).toEqual(expected);
  });

  it('throws exactly when JSON.parse of the whole body throws, and otherwise agrees with it (mutated bodies)', () => {
    const random = seeded(4242);
    const alphabet = Buffer.from('{}[]":,\\ 0aé');
    let thrown = 0;
    for (let round = 0; round < 600; round++) {
      const buf = Buffer.from(JSON.stringify(randomList(random, 1 + Math.floor(random() * 6))));
      const mutated = Buffer.from(buf);
      for (let m = 0; m < 1 + Math.floor(random() * 2); m++) mutated[Math.floor(random() * mutated.length)] = alphabet[Math.floor(random() * alphabet.length)];
      const cut = random() < 0.2 ? mutated.subarray(0, Math.floor(random() * mutated.length)) : mutated;
      const want = jsonOutcome(cut);
      if ('error' in (want as object)) thrown++;
      expect(outcome(randomSplits(cut, random), { runBytes: 1 + Math.floor(random() * 200) }), cut.toString()).toEqual(want);
    }
    expect(thrown).toBeGreaterThan(200);
  });

  it('refuses a list exactly when one item is over the bound, however the body is split', () => {
    const random = seeded(2014);
    let refusals = 0;
    for (let round = 0; round < 150; round++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 8) }, () => randomObject(random, 4));
      const body = Buffer.from(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items }));
      const largest = Math.max(...items.map((i) => Buffer.byteLength(JSON.stringify(i))));
      const head = body.indexOf('"items":[') + '"items":['.length;
      const max = Math.max(largest, head);
      const opts = { maxObjectBytes: max, streamAfterBytes: undefined, runBytes: undefined };
      expect(parse(randomSplits(body, random), opts).items).toEqual(items);
      if (largest > head && body.length > largest - 1) {
        refusals++;
        expect(outcome(randomSplits(body, random), { ...opts, maxObjectBytes: largest - 1 })).toEqual({ error: 'ObjectTooLargeError' });
      }
    }
    expect(refusals).toBeGreaterThan(100);
  });

  it('an endless item, or a body that is no list, is refused within a few chunks of the bound', () => {
    const random = seeded(3);
    for (const head of ['{"kind":"PodList","items":[{"metadata":{"name":"', '{"kind":"PodList","items":[{"metadata":{"name":"a"}},{"m":"', '{"kind":"', '[[[[', 'garbage']) {
      const max = 1 + Math.floor(random() * 50_000);
      const s = new ListBodyStream({ maxObjectBytes: max, what: 'pods' });
      let fed = 0;
      const err = (() => {
        try {
          s.feed(Buffer.from(head));
          for (;;) {
            const chunk = Buffer.alloc(1 + Math.floor(random() * 4096), 0x61);
            fed += chunk.length;
            s.feed(chunk);
          }
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ObjectTooLargeError);
      expect(fed).toBeLessThanOrEqual(4 * max + 3 * 4096);
    }
  });

  it('counts the bytes of the body', () => {
    const buf = Buffer.from(JSON.stringify(list([pod(1), pod(2)])));
    const s = new ListBodyStream({ maxObjectBytes: 1 << 20, what: 'pods', streamAfterBytes: 0 });
    for (const p of randomSplits(buf, seeded(1))) s.feed(p);
    s.end();
    expect(s.bytes).toBe(buf.length);
  });
});
