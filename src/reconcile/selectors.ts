// Label and field selectors evaluated against cached objects, as the API server evaluates them on a
// LIST (ctx.list reads the informer cache, so the filtering happens here, not on the server).
import type { KubeObject } from '../informer/types.js';

export class SelectorError extends Error {}

type Requirement =
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'in' | 'notin'; values: string[] };

/** Parses kube's label selector syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`. */
export function parseLabelSelector(selector: string): (labels: Record<string, string> | undefined) => boolean {
  const reqs: Requirement[] = [];
  for (const part of splitTopLevel(selector)) {
    const s = part.trim();
    if (!s) continue;
    let m: RegExpMatchArray | null;
    if ((m = s.match(/^!\s*([\w./-]+)$/))) reqs.push({ key: m[1], op: 'notexists' });
    // An empty member is the empty value, as kube reads it: `(a,)` is {a, ""} and `()` is {""}
    // (apimachinery pkg/labels/selector.go, parseIdentifiersList and parseValues).
    else if ((m = s.match(/^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/))) reqs.push({ key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',').map((v) => v.trim()) });
    else if ((m = s.match(/^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/))) reqs.push({ key: m[1], op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]] });
    else if ((m = s.match(/^([\w./-]+)$/))) reqs.push({ key: m[1], op: 'exists' });
    else throw new SelectorError(`unable to parse requirement: "${s}" in label selector "${selector}"`);
  }
  return (labels) => reqs.every((r) => {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case 'notexists':
        return !has;
      case 'in':
        return has && r.values.includes(labels![r.key]);
      case 'notin':
        return !has || !r.values.includes(labels![r.key]);
    }
  });
}

/** Parses a field selector (`spec.nodeName=node-1,metadata.namespace!=kube-system`) over any dotted path. */
export function parseFieldSelector(selector: string): (obj: KubeObject) => boolean {
  const reqs = splitTopLevel(selector).map((p) => p.trim()).filter(Boolean).map((s) => {
    const m = s.match(/^([\w.]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new SelectorError(`invalid field selector requirement "${s}": use path=value or path!=value`);
    return { path: m[1].split('.'), negate: m[2] === '!=', value: m[3] };
  });
  return (obj) => reqs.every((r) => {
    let cur: unknown = obj;
    for (const seg of r.path) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[seg] : undefined;
    const text = cur === undefined || cur === null ? '' : typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
    return (text === r.value) !== r.negate;
  });
}

/** Splits on commas outside parentheses (`a in (x,y),b` → two requirements). */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}
