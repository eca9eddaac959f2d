// The WebAssembly JSON scanner (scanner.wat) and the memory it reads: a scratch buffer the caller copies a text
// into, scans in place, and may rewrite and decode from, so the text is copied once for everything.
import type { CountState } from './count-objects.js';
import { SCANNER_WASM_BASE64 } from './scanner-wasm.js';

const PAGE_BYTES = 64 * 1024;
/** Room kept past a text: the scanner's 16-byte loads may read that far. */
const LOAD_PAD_BYTES = 16;

interface ScannerExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  endOfArray(open: number, n: number): number;
  findManagedFields(from: number, n: number): number;
  countObjects(from: number, n: number, depth: number, state: number): number;
  /** What countObjects left: the objects it counted, and (when the text ended first) the depth and string state. */
  count: { value: number };
  depth: { value: number };
  state: { value: number };
}

/** The part of the WebAssembly API used here (the project's lib settings do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

export class WasmScanner {
  private readonly exports: ScannerExports;
  private view: Buffer;

  constructor(exports: ScannerExports) {
    this.exports = exports;
    this.view = Buffer.from(exports.memory.buffer);
  }

  /** The scratch, holding at least `n` bytes the caller may write (growing the memory when needed). */
  scratch(n: number): Buffer {
    const needed = n + LOAD_PAD_BYTES;
    if (this.view.length < needed) {
      this.exports.memory.grow(Math.ceil((needed - this.view.length) / PAGE_BYTES));
      // Growing replaces the memory's ArrayBuffer: the old view is empty now.
      this.view = Buffer.from(this.exports.memory.buffer);
    }
    return this.view;
  }

  /** end-of-array.ts's endOfArray over scratch()[0, n): the same answer for the same bytes. */
  endOfArray(open: number, n: number): number {
    return this.exports.endOfArray(open, n);
  }

  /** count-objects.ts's countObjects over scratch()[from, n): the same answer, and the same state left in `st`. */
  countObjects(from: number, n: number, st: CountState): number {
    const x = this.exports;
    const end = x.countObjects(from, n, st.depth, (st.inString ? 1 : 0) | (st.escape ? 2 : 0));
    st.count += x.count.value;
    const state = end < 0 ? x.state.value : 0;
    st.depth = end < 0 ? x.depth.value : 0;
    st.inString = (state & 1) !== 0;
    st.escape = (state & 2) !== 0;
    return end;
  }

  /** scratch()[0, n).indexOf('"managedFields":[', from), or -1. */
  findManagedFields(from: number, n: number): number {
    return this.exports.findManagedFields(from, n);
  }
}

let scanner: WasmScanner | null | undefined;

/** The scanner, compiled on first use (a few hundred bytes: microseconds); undefined where WebAssembly is unavailable. */
export function wasmScanner(): WasmScanner | undefined {
  if (scanner === undefined) {
    try {
      const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
      const module = new wasm.Module(Buffer.from(SCANNER_WASM_BASE64, 'base64'));
      scanner = new WasmScanner(new wasm.Instance(module).exports as ScannerExports);
    } catch {
      // e.g. node --jitless, or a CPU without the SIMD instructions V8 needs: the JavaScript scanner serves.
      scanner = null;
    }
  }
  return scanner ?? undefined;
}
