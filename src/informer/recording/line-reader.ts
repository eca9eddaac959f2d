// Reads a file line by line with bounded memory: one chunk and the line being assembled, never the whole file
// (a recording can be larger than the longest string V8 can make, 0x1fffffe8 characters).
import { closeSync, openSync, readSync } from 'node:fs';

export interface Line {
  /** The line's text, without its newline. */
  text: string;
  /** 1-based. */
  number: number;
  /** The file ended without a newline after this line (a writer killed mid-line leaves one). */
  unterminated: boolean;
  /** Where the next line starts: a byte offset in a file (readLines can start there again), a character index in a text. */
  end: number;
}

export interface LineReaderOptions {
  /** Bytes read per read(2); small values let tests prove the bound. */
  chunkBytes?: number;
  /** A longer line fails with LineTooLongError (a recording's lines are one list page or one event). */
  maxLineBytes?: number;
}

/** A line longer than the reader accepts. */
export class LineTooLongError extends Error {
  constructor(
    readonly line: number,
    readonly maxBytes: number,
  ) {
    super(`line ${line} is longer than ${maxBytes} bytes`);
    this.name = 'LineTooLongError';
  }
}

const DEFAULT_CHUNK_BYTES = 1 << 20;
const DEFAULT_MAX_LINE_BYTES = 256 << 20;
const FIRST_CHUNK_BYTES = 64 << 10;

/** What the reader held at its peak: for tests and the bench, that memory follows the longest line, not the file. */
export interface LineReaderStats {
  peakHeldBytes: number;
}

/** Where a read starts: the `end` of a line read before, and that line's number (0: the file's start). */
export interface LinePosition {
  offset: number;
  number: number;
}

/**
 * The lines of `path` (from `from` on), read as they are iterated; the file is opened on the first next() and
 * closed at the end or on return().
 */
export function* readLines(path: string, o: LineReaderOptions = {}, stats?: LineReaderStats, from: LinePosition = { offset: 0, number: 0 }): Generator<Line> {
  const chunkBytes = o.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const maxLineBytes = o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const fd = openSync(path, 'r');
  try {
    // Small at first, doubling up to chunkBytes as the read goes on: a pass that reads a few lines and is parked
    // (line-passes.ts) costs a small read, a long read still reads big chunks.
    let chunk = Buffer.allocUnsafe(Math.min(chunkBytes, FIRST_CHUNK_BYTES));
    /** Pieces of the line being assembled, when it spans chunks. */
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let number = from.number;
    /** The file offset of the chunk's first byte. */
    let position = from.offset;
    for (;;) {
      if (chunk.length < chunkBytes && position > from.offset) chunk = Buffer.allocUnsafe(Math.min(chunkBytes, chunk.length * 2));
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) break;
      const chunkAt = position;
      position += n;
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl < 0 || nl >= n) break;
        number++;
        const piece = chunk.subarray(start, nl);
        if (pendingBytes + piece.length > maxLineBytes) throw new LineTooLongError(number, maxLineBytes);
        const text = pendingBytes === 0 ? piece.toString('utf8') : Buffer.concat([...pending, piece]).toString('utf8');
        if (stats) stats.peakHeldBytes = Math.max(stats.peakHeldBytes, chunk.length + pendingBytes + piece.length);
        pending = [];
        pendingBytes = 0;
        yield { text, number, unterminated: false, end: chunkAt + nl + 1 };
        start = nl + 1;
      }
      if (start < n) {
        // The rest of the chunk starts a line the next chunk goes on with: copied, since the chunk is reused.
        if (pendingBytes + (n - start) > maxLineBytes) throw new LineTooLongError(number + 1, maxLineBytes);
        pending.push(Buffer.from(chunk.subarray(start, n)));
        pendingBytes += n - start;
        if (stats) stats.peakHeldBytes = Math.max(stats.peakHeldBytes, chunk.length + pendingBytes);
      }
    }
    if (pendingBytes > 0) yield { text: Buffer.concat(pending).toString('utf8'), number: number + 1, unterminated: true, end: position };
  } finally {
    closeSync(fd);
  }
}

/** The lines of a text in memory (from `from` on), as readLines gives a file's (for recordings parsed from a string). */
export function* splitLines(text: string, from: LinePosition = { offset: 0, number: 0 }): Generator<Line> {
  let start = from.offset;
  let number = from.number;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    number++;
    if (nl < 0) {
      yield { text: text.slice(start), number, unterminated: true, end: text.length };
      return;
    }
    yield { text: text.slice(start, nl), number, unterminated: false, end: nl + 1 };
    start = nl + 1;
  }
}
