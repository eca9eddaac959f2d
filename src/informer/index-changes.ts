// Narrows the indexer's trace records to the changes of some indices (the `kwatch index -o ndjson` stream).
import type { TraceRecord } from './trace.js';

interface IndexChange {
  old: readonly string[];
  new: readonly string[];
}

/**
 * The record with `indices` narrowed to `names`, or undefined when none of them changed. `replace`
 * records (a Replace rebuilt every index) always pass; records of other stages never do.
 */
export function indexChangeRecord(record: TraceRecord, names: ReadonlySet<string>): TraceRecord | undefined {
  if (record.stage !== 'indexer') return undefined;
  if (record.op === 'replace') return record;
  const all = record.indices as Record<string, IndexChange> | undefined;
  if (all === undefined) return undefined;
  const indices: Record<string, IndexChange> = {};
  let any = false;
  for (const name of Object.keys(all)) {
    if (!names.has(name)) continue;
    indices[name] = all[name];
    any = true;
  }
  return any ? { ...record, indices } : undefined;
}
