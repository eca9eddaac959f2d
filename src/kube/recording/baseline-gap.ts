// What changed between two states of a collection — a baseline (a recording at some resourceVersion)
// and a fresh list — for showing the gap a relist papered over after a 410.
import { metaNamespaceKey, type KubeObject } from '../../informer/types.js';

export type GapChange = 'new' | 'changed' | 'gone';

export interface GapEntry {
  key: string;
  change: GapChange;
  /** resourceVersion in the fresh list (new, changed). */
  rv?: string;
  /** resourceVersion in the baseline (changed, gone). */
  baselineRv?: string;
  /** The object was deleted and created again under the same name (its uid differs). */
  recreated?: boolean;
}

/** Objects new in `fresh`, changed (another resourceVersion) or gone since `baseline`, sorted by key. */
export function compareStates(baseline: Iterable<KubeObject>, fresh: Iterable<KubeObject>): GapEntry[] {
  const before = new Map<string, KubeObject>();
  for (const o of baseline) before.set(metaNamespaceKey(o), o);
  const out: GapEntry[] = [];
  const seen = new Set<string>();
  for (const o of fresh) {
    const key = metaNamespaceKey(o);
    seen.add(key);
    const old = before.get(key);
    const rv = o.metadata.resourceVersion;
    if (!old) out.push({ key, change: 'new', rv });
    else if (old.metadata.resourceVersion !== rv) {
      const recreated = Boolean(old.metadata.uid && o.metadata.uid && old.metadata.uid !== o.metadata.uid);
      out.push({ key, change: 'changed', rv, baselineRv: old.metadata.resourceVersion, ...(recreated ? { recreated } : {}) });
    }
  }
  for (const [key, old] of before) if (!seen.has(key)) out.push({ key, change: 'gone', baselineRv: old.metadata.resourceVersion });
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** "3 new, 5 changed, 1 gone" (or "no difference"). */
export function summarizeGap(gap: GapEntry[]): string {
  if (gap.length === 0) return 'no difference';
  const n = (c: GapChange) => gap.filter((g) => g.change === c).length;
  return `${n('new')} new, ${n('changed')} changed, ${n('gone')} gone`;
}
