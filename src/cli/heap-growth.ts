// How far V8 lets its old generation grow past what survived the last full collection. On a machine with a few GB of
// memory V8 allows up to 4x (its heap controller's kMaxHeapGrowingFactor), and a long recording replay, whose cache
// keeps replacing objects, reaches it: the dead versions pile up to 4x the live state before V8 collects them (issue
// 43: peak RSS 3.8x of the state). Doubling is the ceiling here: it sets no size limit (the heap still grows with the
// state, however large), only how much garbage may wait; the replay pays a few more full collections, cheap since
// each version shares its unchanged parts with the one before (unchanged-parts.ts).
import { setFlagsFromString } from 'node:v8';

/** The growth past the live heap, in percent, that a replay allows. */
export const REPLAY_HEAP_GROWING_PERCENT = 100;

/** Node flags that say the user chose V8's heap sizing: theirs is kept. */
const USER_HEAP_FLAGS = /--(max-old-space-size|max-heap-size|heap-growing-percent)\b/;

/** Lets the old generation grow to at most (1 + percent/100) x its live size between full collections. */
export function limitHeapGrowth(percent = REPLAY_HEAP_GROWING_PERCENT, execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (execArgv.some((a) => USER_HEAP_FLAGS.test(a)) || USER_HEAP_FLAGS.test(nodeOptions)) return false;
  // Read by V8 each time it sets the next limit, so setting it while running takes effect at the next collection.
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
