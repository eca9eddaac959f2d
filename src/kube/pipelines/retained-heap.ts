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
 * The heap one `build` result keeps alive: used heap after a full GC with `copies` results held, minus the same
 * before building them (their garbage collected), divided by `copies`. Synchronous, so nothing else allocates in
 * between. A GC's leftovers move a reading by tens of kB, so a small structure is measured as several copies held at
 * once (a cache of a few hundred trimmed objects read 0 B once in CI without). undefined when no GC can be forced
 * (then the difference would be mostly garbage).
 */
export function retainedHeapBytes(build: () => unknown, copies = 1): number | undefined {
  if (!collectGarbage()) return undefined;
  // A second full GC: what the first left to sweep (an earlier measurement's garbage) is not in the baseline.
  collectGarbage();
  const before = getHeapStatistics().used_heap_size;
  let held: unknown[] | undefined = [];
  for (let i = 0; i < copies; i++) held.push(build());
  collectGarbage();
  const after = getHeapStatistics().used_heap_size;
  // Read after the second measurement so the results cannot be collected early.
  if (held.length !== copies) held = undefined;
  return Math.max(0, Math.round((after - before) / copies));
}
