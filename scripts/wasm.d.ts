export const WAT_FILE: string;
export const WASM_TS_FILE: string;
export function compileScanner(): Promise<Buffer>;
export function freshScannerModule(): Promise<string>;
