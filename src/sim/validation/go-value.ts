// kube prints a field error's bad value with Go's %#v when it is a struct or map; these render the ones the sim's
// validation reports (label maps, metav1.LabelSelector, resource.Quantity) the same way, so messages read like kube-apiserver's.
import { goQuote } from '../selector-error.js';
import type { LabelSelectorObject } from '../label-selector.js';
import { parsedQuantity } from '../kinds/quantity-canonical.js';

/** %#v of a map[string]string: keys sorted, as fmt prints maps; nil when absent. */
export function goStringMap(m: Record<string, string> | null | undefined): string {
  if (m === null || m === undefined || typeof m !== 'object') return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`;
}

/** %#v of a []string; nil when absent. */
export function goStrings(v: string[] | null | undefined): string {
  if (!Array.isArray(v)) return '[]string(nil)';
  return `[]string{${v.map((s) => goQuote(String(s))).join(', ')}}`;
}

/** %#v of a v1.LabelSelector (the value a *LabelSelector field error shows). */
export function goLabelSelector(sel: LabelSelectorObject | null | undefined): string {
  if (sel === null || sel === undefined) return 'null';
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions.map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(String(e.key ?? ''))}, Operator:${goQuote(String(e.operator ?? ''))}, Values:${goStrings(e.values)}}`).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${exprs}}`;
}

/**
 * %#v of a resource.Quantity (a field error shows the struct: Quantity's String has a pointer receiver), as ParseQuantity
 * builds it from the stored string. An inf.Dec value prints a pointer; the sim's stands in for Go's address.
 */
export function goQuantity(stored: string): string {
  const q = parsedQuantity(stored);
  const amount = q?.amount ?? { value: 0n, scale: 0 };
  const dec = q && !q.amount ? '(*inf.Dec)(0xc000010000)' : '(*inf.Dec)(nil)';
  return `resource.Quantity{i:resource.int64Amount{value:${amount.value}, scale:${amount.scale}}, d:resource.infDecAmount{Dec:${dec}}, s:${goQuote(q?.s ?? '')}, Format:${goQuote(q?.format ?? 'DecimalSI')}}`;
}
