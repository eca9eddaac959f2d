// The WebAssembly item counter (scanner.wat's countObjects, 64 bytes at a time) must give the JavaScript reference's
// answer for every text and every way it is cut into pieces: the end of the array, the count, and the state it carries
// to the next piece. The texts: lists of random values (quotes, backslashes, brackets inside strings, multi-byte
// text), strings whose escapes fall on every byte of a 64-byte window, and soups of the bytes that matter (not JSON).
import { describe, expect, it } from 'vitest';
import { countObjects, countStart, type CountState } from '../../src/informer/json-scan/count-objects.js';
import { wasmScanner } from '../../src/informer/json-scan/wasm-scanner.js';
import { randomValue, seeded } from './fuzz-helpers.js';

const scanner = wasmScanner()!;

interface Counted {
  end: number;
  state: CountState;
}

/**
 * Counts `text` from `from` with cuts at `cuts` (each piece a call, the state carried), by the reference or the
 * WebAssembly counter (each piece copied to the scratch's start, stale bytes after it). `end` is in the whole text.
 */
function counted(text: Buffer, from: number, cuts: number[], wasm: boolean, stale = 0x22): Counted {
  const st = countStart();
  const bounds = [from, ...cuts.filter((c) => c > from && c < text.length), text.length];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [a, b] = [bounds[k], bounds[k + 1]];
    let e: number;
    if (wasm) {
      const scratch = scanner.scratch(b - a);
      scratch.fill(stale, 0, Math.min(scratch.length, b - a + 200));
      text.copy(scratch, 0, a, b);
      e = scanner.countObjects(0, b - a, st);
    } else e = countObjects(text.subarray(a, b), 0, b - a, st);
    if (e >= 0) return { end: a + e, state: { ...st } };
  }
  return { end: -1, state: { ...st } };
}

function agree(text: Buffer, from: number, cuts: number[], label: string, stale?: number): Counted {
  const js = counted(text, from, cuts, false);
  const wasm = counted(text, from, cuts, true, stale);
  expect(wasm, label).toStrictEqual(js);
  return js;
}

describe('countObjects', () => {
  it('counts the objects of a list, not the objects inside them, and ends just past the array', () => {
    const items = [{ a: { b: [{}, {}] } }, { s: '{"x":[{]' }, [{}], 'str{', 3, null, {}];
    const text = Buffer.from(`{"items":${JSON.stringify(items)},"after":[{}]}`);
    const open = text.indexOf('[') + 1;
    const r = agree(text, open, [], 'whole');
    expect(r.state.count).toBe(3);
    expect(r.end).toBe(text.indexOf(',"after"'));
  });

  it('agrees with the reference on thousands of random lists, whole and cut into random pieces', () => {
    const random = seeded(20261129);
    for (let k = 0; k < 1500; k++) {
      const value = Array.from({ length: Math.floor(random() * 40) }, () => randomValue(random, 4));
      // Long strings too: whole 64-byte windows inside one string, and windows that end inside a string.
      if (random() < 0.3) value.push({ long: 'x\\"'.repeat(Math.floor(random() * 60)) + 'é'.repeat(Math.floor(random() * 50)) });
      const text = Buffer.from(`${' '.repeat(Math.floor(random() * 70))}${JSON.stringify(value)}]`);
      const open = text.indexOf('[') + 1;
      const whole = agree(text, open, [], `list ${k}`);
      expect(whole.state.count, `list ${k}`).toBe(value.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v)).length);
      const cuts = Array.from({ length: Math.floor(random() * 6) }, () => Math.floor(random() * text.length)).sort((a, b) => a - b);
      agree(text, open, cuts, `list ${k} cut at ${cuts.join(',')}`);
      // Ended anywhere: the state carried must match.
      agree(text.subarray(0, open + Math.floor(random() * (text.length - open))), open, cuts, `list ${k} cut short`, random() < 0.5 ? 0x5c : 0x7d);
    }
  });

  it('agrees on escapes, quotes and brackets at every byte of a 64-byte window, and across pieces there', () => {
    const tricky = ['"\\\\"', '"\\""', '"a\\\\\\"b"', '"}]"', '"\\\\\\\\"', '{"k":"\\"{"}', '"é\\"✓"', '{}', '[{}]'];
    for (const t of tricky) {
      for (let pad = 0; pad < 70; pad++) {
        const text = Buffer.from(`{"a":"${'x'.repeat(pad)}"},${t},{"z":${t}},${t}]`);
        for (const cut of [0, pad + 5, pad + 6, pad + 7, pad + 8, 64, 65, 127, 128]) agree(text, 0, [cut], `${t} after ${pad} cut ${cut}`);
        const r = agree(text, 0, [], `${t} after ${pad}`);
        expect(r.end, `${t} after ${pad}`).toBe(text.length);
      }
    }
  });

  it('agrees on soups of quotes, backslashes and brackets (not JSON: backslashes outside strings, closers unmatched)', () => {
    const random = seeded(43);
    const alphabet = '{}[]"\\ ax,:é';
    for (let k = 0; k < 4000; k++) {
      const n = Math.floor(random() * 300);
      let s = '';
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
      const text = Buffer.from(s);
      const cuts = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * text.length)).sort((a, b) => a - b);
      agree(text, 0, [], `soup ${k}: ${s}`);
      agree(text, 0, cuts, `soup ${k} cut at ${cuts.join(',')}: ${s}`);
    }
  });

  it('goes on from a state it was handed: inside a string, after a backslash, deep in an object', () => {
    const text = Buffer.from(`${'y'.repeat(70)}"}],{"b":1},{}]`);
    for (const start of [{ inString: true, escape: true, depth: 0 }, { inString: true, escape: false, depth: 0 }, { inString: false, escape: false, depth: 2 }]) {
      const js = { ...countStart(), ...start };
      const wasm = { ...countStart(), ...start };
      const scratch = scanner.scratch(text.length);
      text.copy(scratch, 0);
      const ends = [countObjects(text, 0, text.length, js), scanner.countObjects(0, text.length, wasm)];
      expect(ends[1], JSON.stringify(start)).toBe(ends[0]);
      expect(wasm, JSON.stringify(start)).toStrictEqual(js);
    }
  });
});
