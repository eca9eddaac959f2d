// Passes over one file's lines, any number of them at once, with at most a fixed number holding an open file and
// a read buffer. Replay reads a recording once per resource, each pass at its own place (issue 36: with one open
// file and one 1 MB buffer per pass, a recording declaring 10,000 resources took 10 GB, and 100,000 ran out of
// file descriptors). A pass beyond the bound is parked: its file is closed and its buffer dropped, and only where
// its next line starts is kept; its next read opens the file again there.
import { readLines, type Line, type LinePosition, type LineReaderOptions, type LineReaderStats } from './line-reader.js';

/** Passes holding a file and a buffer at once, per file: enough for the few resources a replay reads side by side. */
export const OPEN_PASSES = 8;

export interface LinePassesStats extends LineReaderStats {
  /** The most passes that held an open file at the same time. */
  peakOpen: number;
  /** Passes parked to make room (each costs one reopen when it reads on). */
  parked: number;
}

/** Makes passes over `path`'s lines; `openPasses`: how many may hold a file open at once. */
export class LinePasses {
  /** The passes holding a file, least recently read first. */
  private readonly open = new Set<LinePass>();
  readonly stats: LinePassesStats = { peakHeldBytes: 0, peakOpen: 0, parked: 0 };

  constructor(
    private readonly path: string,
    private readonly o: LineReaderOptions = {},
    private readonly openPasses = OPEN_PASSES,
  ) {}

  /** A new pass from `from` (the file's start when undefined). */
  pass(from?: LinePosition): Iterator<Line> {
    return new LinePass(this, from);
  }

  /** `pass` is about to read: it becomes the most recent, and the least recent beyond the bound is parked. */
  reading(pass: LinePass): Generator<Line> {
    this.open.delete(pass);
    this.open.add(pass);
    for (const oldest of this.open) {
      if (this.open.size <= this.openPasses) break;
      this.open.delete(oldest);
      oldest.park();
      this.stats.parked++;
    }
    this.stats.peakOpen = Math.max(this.stats.peakOpen, this.open.size);
    return pass.lines ?? readLines(this.path, this.o, this.stats, pass.position);
  }

  /** `pass` has ended or was given up: it holds nothing any more. */
  closed(pass: LinePass): void {
    this.open.delete(pass);
  }
}

class LinePass implements Iterator<Line> {
  /** The open read, while the pass is not parked. */
  lines?: Generator<Line>;
  /** Where the next line starts. */
  position: LinePosition;
  private done = false;

  constructor(
    private readonly passes: LinePasses,
    from: LinePosition = { offset: 0, number: 0 },
  ) {
    this.position = from;
  }

  next(): IteratorResult<Line> {
    if (this.done) return { done: true, value: undefined };
    this.lines = this.passes.reading(this);
    let r: IteratorResult<Line>;
    try {
      r = this.lines.next();
    } catch (e) {
      this.finish();
      throw e;
    }
    if (r.done) {
      this.finish();
      return r;
    }
    this.position = { offset: r.value.end, number: r.value.number };
    return r;
  }

  return(): IteratorResult<Line> {
    this.finish();
    return { done: true, value: undefined };
  }

  /** Closes the file (the generator's finally) and drops the buffer; the next read starts again at `position`. */
  park(): void {
    this.lines?.return(undefined);
    this.lines = undefined;
  }

  private finish(): void {
    this.done = true;
    this.park();
    this.passes.closed(this);
  }
}
