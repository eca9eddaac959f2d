// The WebAssembly scanner must give the JavaScript reference's answer for every text: valid JSON with the
// characters that trip scanners, texts cut short anywhere, and escapes at the last byte. Its committed bytes
// must be what its source compiles to.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freshScannerModule, WASM_TS_FILE } from '../../scripts/wasm.js';
import { staleMessage } from '../../scripts/generated-file.js';
import { endOfArray } from '../../src/informer/json-scan/end-of-array.js';
import { cutManagedFields } from '../../src/informer/omit-managed-fields.js';
import { wasmScanner } from '../../src/informer/json-scan/wasm-scanner.js';
import { randomValue, seeded } from './fuzz-helpers.js';

const scanner = wasmScanner()!;

/** Both scanners over `text` from `open`, up to `n`; the WebAssembly one reads a scratch holding stale bytes past n. */
function both(text: Buffer, open: number, n = text.length, stale = 0x22): { js: number; wasm: number } {
  const scratch = scanner.scratch(text.length);
  scratch.fill(stale, 0, scratch.length);
  text.copy(scratch, 0);
  return { js: endOfArray(text, open, n), wasm: scanner.endOfArray(open, n) };
}

const KEY = '"managedFields":[';

/**
 * Where the WebAssembly search finds the key in text[from, n), and where indexOf does. Past n the scratch holds the
 * rest of the text and then the key: bytes that would complete a key cut at n.
 */
function search(text: Buffer, from: number, n = text.length): { js: number; wasm: number } {
  const scratch = scanner.scratch(text.length + KEY.length);
  text.copy(scratch, 0);
  scratch.write(KEY, text.length);
  return { js: text.subarray(0, n).indexOf(KEY, from), wasm: scanner.findManagedFields(from, n) };
}

describe('the JSON scanners', () => {
  it('are available here (WebAssembly with SIMD)', () => {
    expect(scanner).toBeDefined();
  });

  it('find the end of an array whose strings hold brackets, escaped quotes and long runs without either', () => {
    const value = ['k:{"type":"]}["}', 'a\\"b\\\\', 'x'.repeat(100), { 'f:x': { '.': {} } }, 'é✓😀', '"'.repeat(17)];
    const text = Buffer.from(`{"managedFields":${JSON.stringify(value)},"after":[1]}`);
    const open = text.indexOf('[');
    const expected = open + Buffer.byteLength(JSON.stringify(value));
    expect(both(text, open)).toEqual({ js: expected, wasm: expected });
  });

  it('say -1 when the text ends inside the value, wherever it is cut (stale bytes past the end never count)', () => {
    const text = Buffer.from(JSON.stringify([{ a: 'x\\"]'.repeat(9) + 'y'.repeat(40) }, ['"]}'], 'tail\\']));
    for (let n = 1; n < text.length; n++) {
      for (const stale of [0x22, 0x5c, 0x5d, 0x20]) expect(both(text, 0, n, stale), `cut at ${n}`).toEqual({ js: -1, wasm: -1 });
    }
    expect(both(text, 0).wasm).toBe(text.length);
  });

  it('agree on thousands of random values, whole and cut short', () => {
    const random = seeded(20261126);
    for (let k = 0; k < 3000; k++) {
      const value = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomValue(random, 4));
      const text = Buffer.from(`{"x":${JSON.stringify(value)}}`);
      const open = 5;
      expect(both(text, open).wasm).toBe(text.length - 1);
      const n = open + Math.floor(random() * (text.length - open));
      const r = both(text, open, n);
      expect(r.wasm, `value ${k} cut at ${n}`).toBe(r.js);
    }
  });

  it('agree on malformed text (closers counted, not matched; a backslash as the last byte)', () => {
    for (const s of ['[}', '[[]}]', '["a\\', '["a\\"', '[{"a":"b"]', '["\\\\"]']) {
      const text = Buffer.from(s);
      const r = both(text, 0);
      expect(r.wasm, s).toBe(r.js);
    }
  });

  it('find the managedFields key at every alignment, past decoys that start like it', () => {
    const decoys = '{"metadata":{"m":"managedFields","managedField":[],"managedFields":{},"managedFields" :[],"managedFieldsX":[],"\\"managedFields\\":[":1,';
    for (let pad = 0; pad < 40; pad++) {
      const text = Buffer.from(`${decoys}"p":"${'m'.repeat(pad)}","managedFields":[{"manager":"k"}]}}`);
      const r = search(text, 0);
      expect(r.wasm, `padding ${pad}`).toBe(r.js);
      expect(r.js).toBeGreaterThan(decoys.length);
      // From just past it there is none; from it, it is found again.
      expect(search(text, r.js + 1)).toEqual({ js: -1, wasm: -1 });
      expect(search(text, r.js).wasm).toBe(r.js);
    }
  });

  it('never find a key that the end of the text cuts, whatever lies past the end', () => {
    const text = Buffer.from(`{"a":"${'x'.repeat(20)}","managedFields":[]}`);
    const at = text.indexOf(KEY);
    for (let n = 0; n <= text.length; n++) {
      const r = search(text, 0, n);
      expect(r, `cut at ${n}`).toEqual({ js: n >= at + KEY.length ? at : -1, wasm: n >= at + KEY.length ? at : -1 });
    }
  });

  it('agree with indexOf on thousands of random texts made of pieces of the key', () => {
    const random = seeded(20261127);
    const pieces = ['"', 'm', '"managed', 'Fields', '":', '[', KEY, '"managedFields":', ' ', 'x', '\\', '"metadata":{'];
    for (let k = 0; k < 3000; k++) {
      const text = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 30) }, () => pieces[Math.floor(random() * pieces.length)]).join(''));
      const from = Math.floor(random() * text.length);
      const n = from + Math.floor(random() * (text.length - from + 1));
      const r = search(text, from, n);
      expect(r.wasm, `text ${k} from ${from} to ${n}: ${text}`).toBe(r.js);
    }
  });

  it('grow the scratch for a text larger than the memory holds, keeping the answer', () => {
    const value = ['z'.repeat(200_000), { k: 'v' }];
    const text = Buffer.from(JSON.stringify(value));
    expect(both(text, 0)).toEqual({ js: text.length, wasm: text.length });
  });

  it('leave the cut to the JavaScript scanner where WebAssembly is missing (node --jitless), with the same result', () => {
    const input = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'p', managedFields: [{ manager: 'k', fieldsV1: { 'f:x': { 'k:{"a":"]}"}': {} } } }] }, spec: { s: 'x'.repeat(50) } } });
    // The built module, as the CLI runs it (npm test builds before it tests).
    const built = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'informer', 'omit-managed-fields.js')).href;
    const script = `import(${JSON.stringify(built)}).then((m) => process.stdout.write(JSON.stringify([typeof WebAssembly, m.cutManagedFields(Buffer.from(process.argv[1]))])))`;
    const out = execFileSync(process.execPath, ['--jitless', '-e', script, input], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [wasm, cut] = JSON.parse(out) as [string, unknown];
    expect(wasm).toBe('undefined');
    expect(cut).toEqual(cutManagedFields(Buffer.from(input)));
    expect(cut).toMatchObject({ cuts: 1 });
  });

  it('run the module its source compiles to (else: npm run wasm)', async () => {
    const message = staleMessage('src/informer/json-scan/scanner-wasm.ts', readFileSync(WASM_TS_FILE, 'utf8'), await freshScannerModule(), 'npm run wasm');
    expect(message, message).toBeUndefined();
  });
});
