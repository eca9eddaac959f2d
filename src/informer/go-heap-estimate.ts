// An estimate of the Go heap an object takes in a client-go cache, from its JSON value alone: the object
// decoded as unstructured.Unstructured (map[string]interface{}), as a dynamic or metadata informer holds it.
// A typed informer's structs (corev1.Pod) carry no map overhead and hold less; kwatch has no Go schema to
// size them with, so it says "as unstructured" and leaves it there.
//
// The model (64-bit, Go 1.24+, whose maps are swiss tables: internal/runtime/maps):
// - every allocation is rounded up to the Go allocator's size class (runtime/sizeclasses.go); allocations
//   under 16 bytes without pointers (short string bytes, boxed int64) go to the tiny allocator, which packs
//   them, so they count at their own size;
// - a string in an interface{}: a boxed 16-byte string header plus its bytes; a map key: its bytes (the
//   header sits in the map's slot); the JSON decoder allocates every key and value anew;
// - a number: int64 or float64 boxed in 8 bytes, except values 0..255 (the runtime's static small ints);
//   booleans and null allocate nothing;
// - []interface{}: a boxed 24-byte slice header plus a backing array of 16-byte interfaces, its capacity
//   grown by append (doubling);
// - map[string]interface{}: a 48-byte Map header; up to 8 entries one group (8 control bytes + 8 slots of
//   32 bytes = 264), more a table (about 32 bytes) with capacity slots, a power of two kept at most 7/8 full,
//   in groups of 8.
// Measured against nothing (kwatch runs no Go): it is an estimate, and every output says so.

/** The allocator's size classes up to 32 KiB (Go runtime/sizeclasses.go); larger objects take whole 8 KiB pages. */
const SIZE_CLASSES = [
  8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408,
  1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480,
  21760, 24576, 27264, 28672, 32768,
];
const PAGE = 8192;
const TINY = 16;

const STRING_HEADER = 16;
const INTERFACE = 16;
const SLICE_HEADER = 24;
const MAP_HEADER = 48;
const GROUP_SLOTS = 8;
const GROUP_BYTES = 8 + GROUP_SLOTS * (STRING_HEADER + INTERFACE);
const TABLE_HEADER = 32;
const MAX_LOAD = 7 / 8;

/** The bytes the Go allocator hands out for a request of n bytes. */
export function goAllocation(n: number, pointerFree = false): number {
  if (n <= 0) return 0;
  if (pointerFree && n < TINY) return n;
  for (const c of SIZE_CLASSES) if (n <= c) return c;
  return Math.ceil(n / PAGE) * PAGE;
}

function stringBytes(s: string): number {
  return goAllocation(Buffer.byteLength(s, 'utf8'), true);
}

/** The Go heap of a JSON value held in an interface{} (what an unstructured map's values are). */
export function goValueBytes(v: unknown): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 0;
  if (typeof v === 'string') return goAllocation(STRING_HEADER) + stringBytes(v);
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v < 256 ? 0 : goAllocation(8, true);
  if (Array.isArray(v)) {
    let bytes = goAllocation(SLICE_HEADER) + goAllocation(INTERFACE * appendCapacity(v.length));
    for (const item of v) bytes += goValueBytes(item);
    return bytes;
  }
  if (typeof v === 'object') return goMapBytes(v as Record<string, unknown>);
  return 0;
}

/** A map[string]interface{} with its keys and values (a map is pointer-shaped: no boxing). */
export function goMapBytes(m: Record<string, unknown>): number {
  const keys = Object.keys(m);
  let bytes = goAllocation(MAP_HEADER) + goMapStorage(keys.length);
  for (const k of keys) bytes += stringBytes(k) + goValueBytes(m[k]);
  return bytes;
}

/** Slots of a swiss map holding n entries of map[string]interface{}: one group up to 8, then a table. */
function goMapStorage(n: number): number {
  if (n === 0) return 0;
  if (n <= GROUP_SLOTS) return goAllocation(GROUP_BYTES);
  let capacity = 2 * GROUP_SLOTS;
  while (n > capacity * MAX_LOAD) capacity *= 2;
  return goAllocation(TABLE_HEADER) + goAllocation((capacity / GROUP_SLOTS) * GROUP_BYTES) + goAllocation(8);
}

/** The capacity append reaches for n items from an empty slice (doubling; exact below 256). */
function appendCapacity(n: number): number {
  if (n === 0) return 0;
  let c = 1;
  while (c < n) c = c < 256 ? c * 2 : Math.ceil(c * 1.25);
  return c;
}

/**
 * One cached object: the Unstructured wrapper (a pointer to its map), its map, and its entry in the store's
 * own map[string]interface{} keyed by namespace/name (a slot of 32 bytes at 7/8 load, plus the key's bytes).
 */
export function goCachedObjectBytes(obj: Record<string, unknown>, key: string): number {
  return goAllocation(8) + goMapBytes(obj) + Math.ceil((STRING_HEADER + INTERFACE) / MAX_LOAD) + stringBytes(key);
}

export const GO_ESTIMATE_METHOD =
  'estimated: Go 1.24+ heap of each object decoded as unstructured.Unstructured (map[string]interface{}: swiss-table maps, boxed strings and numbers, Go size classes) plus its store entry; a typed informer\'s structs hold less';
