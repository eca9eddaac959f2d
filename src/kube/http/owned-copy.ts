// A copy of bytes that is kept a while (a read's body until its client takes it, the start of a line split across
// reads) in memory of its own. Buffer.allocUnsafe, Buffer.from and Buffer.concat carve buffers under half the pool's
// size out of a pool shared by the whole process (8 kB slabs on Node 20, 64 kB on Node 24): one kept piece holds its
// whole slab, so on Node 24 each of 2,000 stalled watches held several 64 kB slabs (docs/benchmarks.md, issue 43).

/** `parts` joined into one buffer that shares no memory with any other. */
export function ownedCopy(...parts: Uint8Array[]): Buffer {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
