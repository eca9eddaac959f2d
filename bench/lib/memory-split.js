// Where a process's resident memory lies (Linux): /proc/self/smaps read mapping by mapping and split into the main
// malloc heap ([heap], glibc's brk arena: small and mid-size mallocs of the main thread, Buffers' backing stores among
// them), anonymous mappings (V8's heap pages, large mallocs, other threads' malloc arenas), the files mapped (the node
// binary, libraries) and the rest; V8's own committed spaces from v8.getHeapSpaceStatistics, so the anonymous part can
// be split into V8's and the rest. Used by bench/endpoint-stalled.js (issue 43) to say what the RSS that stays is.
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const KB = 1024;

/** RSS split by kind of mapping, in bytes; undefined off Linux. */
export function memorySplit() {
  let text;
  try {
    text = readFileSync('/proc/self/smaps', 'latin1');
  } catch {
    return undefined;
  }
  const out = { rss: 0, brkHeap: 0, anon: 0, file: 0, stack: 0, other: 0, anonHuge: 0 };
  let kind = 'other';
  for (const line of text.split('\n')) {
    // A mapping's header: "start-end perms offset dev inode [path]".
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (m) {
      const path = m[2];
      kind = path === '[heap]' ? 'brkHeap' : path === '' ? 'anon' : path.startsWith('[stack') ? 'stack' : path.startsWith('/') ? 'file' : 'other';
      continue;
    }
    if (line.startsWith('Rss:')) {
      const n = Number(line.slice(4).trim().split(/\s+/)[0]) * KB;
      out[kind] += n;
      out.rss += n;
    } else if (line.startsWith('AnonHugePages:')) out.anonHuge += Number(line.slice(14).trim().split(/\s+/)[0]) * KB;
  }
  const spaces = {};
  let v8 = 0;
  for (const s of getHeapSpaceStatistics()) {
    spaces[s.space_name] = s.physical_space_size;
    v8 += s.physical_space_size;
  }
  const m = process.memoryUsage();
  return {
    ...out,
    v8Committed: v8,
    /** Anonymous mappings that are not V8's heap: large mallocs, other threads' arenas, V8's code and zones. */
    anonNotV8: out.anon - v8,
    v8Spaces: spaces,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  };
}
