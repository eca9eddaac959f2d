// The Accept header as kube-apiserver's negotiation reads it (goautoneg): media ranges with their parameters and q.

/** One media range of an Accept header. */
export interface AcceptClause { type: string; subtype: string; params: Record<string, string>; q: number }

/** Parses an Accept header; clauses ordered as goautoneg does: by q, then concrete types before wildcards (stable). */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [range, ...rawParams] = part.split(';').map((s) => s.trim());
    if (!range) continue;
    const [type, subtype = '*'] = range.toLowerCase().split('/');
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim();
      const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (k === 'q') q = Number(v) || 0;
      else params[k] = v;
    }
    clauses.push({ type, subtype, params, q });
  }
  const rank = (c: AcceptClause) => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses.map((c, i) => ({ c, i })).sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i).map((x) => x.c);
}
