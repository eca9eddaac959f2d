// Measuring V8 heap: a full GC on demand (V8's gc(), exposed at run time) and the heap a structure retains.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined | null;

/** A full GC when one can be had; false when V8 refused to expose gc(). */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
      // V8 drops the bytecode of functions unused for a few GCs, and frees it at whichever GC it comes to: a
      // measurement across two GCs would count that as the structure's (tens of kB either way) without this.
      setFlagsFromString('--no-flush-bytecode');
    } catch {
      gc = null;
    }
  }
  gc?.();
  return gc !== null;
}

/**
 * The heap `build`'s result keeps alive: used heap after a full GC with the result held, minus the same
 * before building it (its garbage collected). Synchronous, so nothing else allocates in between.
 * undefined when no GC can be forced (then the difference would be mostly garbage).
 */
export function retainedHeapBytes(build: () => unknown): number | undefined {
  if (!collectGarbage()) return undefined;
  const before = getHeapStatistics().used_heap_size;
  let held: unknown = build();
  collectGarbage();
  const after = getHeapStatistics().used_heap_size;
  // Read after the second measurement so the result cannot be collected early.
  if (held === retainedHeapBytes) held = undefined;
  return Math.max(0, after - before);
}
