// Label maps and label selectors printed as kube's labels.FormatLabels and metav1.FormatLabelSelector write them.

/** labels.FormatLabels: "a=1,b=2" in key order, "<none>" when empty. */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels![k]}`).join(',');
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key, set values sorted; "" for a nil or empty
 * selector; undefined for an invalid one (an unknown operator).
 */
export function labelSelectorString(sel: LabelSelector | undefined | null): string | undefined {
  if (!sel) return '';
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const values = [...(e.values ?? [])].sort();
    const list = values.length === 1 ? values[0] : values.join(',');
    switch (e.operator) {
      case 'In': reqs.push({ key: e.key, text: `${e.key} in (${list})` }); break;
      case 'NotIn': reqs.push({ key: e.key, text: `${e.key} notin (${list})` }); break;
      case 'Exists': reqs.push({ key: e.key, text: e.key }); break;
      case 'DoesNotExist': reqs.push({ key: e.key, text: `!${e.key}` }); break;
      default: return undefined;
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/** metav1.FormatLabelSelector: the selector string, "<none>" when it selects everything or nothing, "<error>" when invalid. */
export function formatLabelSelector(sel: LabelSelector | undefined | null): string {
  const s = labelSelectorString(sel);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}
