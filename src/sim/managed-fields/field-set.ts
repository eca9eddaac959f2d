// Field sets of server-side apply: paths made of FieldsV1 path elements, set algebra, and the FieldsV1 wire tree.

/**
 * One path element as FieldsV1 spells it: `f:<field>`, `k:<json of the key fields>` (a keyed list item),
 * `v:<json value>` (a member of a set-list) or `i:<index>`.
 */
export type PathElement = string;

/** A FieldsV1 tree: children by path element; `.` marks a node that is itself a member and has children. */
export type FieldsTree = { [element: string]: FieldsTree };

/** Paths are stored joined by NUL, which no path element contains. */
const SEP = '\u0000';

/** A set of field paths (each path an array of path elements, stored joined). */
export class FieldSet {
  readonly paths = new Set<string>();

  static of(paths: Iterable<PathElement[]>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: PathElement[]): void { if (path.length) this.paths.add(path.join(SEP)); }
  has(path: PathElement[]): boolean { return this.paths.has(path.join(SEP)); }
  get size(): number { return this.paths.size; }
  get empty(): boolean { return this.paths.size === 0; }

  *[Symbol.iterator](): IterableIterator<PathElement[]> {
    for (const p of this.paths) yield p.split(SEP);
  }

  union(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const p of this.paths) s.paths.add(p);
    for (const p of o.paths) s.paths.add(p);
    return s;
  }

  difference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const p of this.paths) if (!o.paths.has(p)) s.paths.add(p);
    return s;
  }

  intersection(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const p of this.paths) if (o.paths.has(p)) s.paths.add(p);
    return s;
  }

  equals(o: FieldSet): boolean {
    if (this.paths.size !== o.paths.size) return false;
    for (const p of this.paths) if (!o.paths.has(p)) return false;
    return true;
  }

  /** Whether a member of this set is `path` itself or lies under it. */
  hasPrefix(path: PathElement[]): boolean {
    const joined = path.join(SEP);
    for (const p of this.paths) if (p === joined || p.startsWith(joined + SEP)) return true;
    return false;
  }

  /** Whether a member of this set lies strictly under `path`. */
  hasDescendant(path: PathElement[]): boolean {
    const prefix = path.join(SEP) + SEP;
    for (const p of this.paths) if (p.startsWith(prefix)) return true;
    return false;
  }
}

// ---- FieldsV1 --------------------------------------------------------------------------------

/** structured-merge-diff orders siblings: field names, then keys, then values, then indexes. */
const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareElements(a: string, b: string): number {
  const ra = RANK[a[0]] ?? 4, rb = RANK[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Node { member: boolean; children: Map<string, Node> }

/** The FieldsV1 tree of a set, as kube serialises it (`.` first, then children in order). */
export function toFieldsV1(set: FieldSet): FieldsTree {
  const root: Node = { member: false, children: new Map() };
  for (const path of set) {
    let n = root;
    for (const pe of path) {
      let c = n.children.get(pe);
      if (!c) n.children.set(pe, (c = { member: false, children: new Map() }));
      n = c;
    }
    n.member = true;
  }
  const emit = (n: Node): FieldsTree => {
    const out: FieldsTree = {};
    if (n.member && n.children.size) out['.'] = {};
    for (const k of [...n.children.keys()].sort(compareElements)) out[k] = emit(n.children.get(k)!);
    return out;
  };
  return emit(root);
}

/** The set a FieldsV1 tree describes: leaves and `.`-marked nodes are members. */
export function fromFieldsV1(tree: unknown): FieldSet {
  const set = new FieldSet();
  const walk = (t: unknown, path: string[]): void => {
    if (typeof t !== 'object' || t === null || Array.isArray(t)) return;
    const keys = Object.keys(t);
    if (keys.length === 0) { set.insert(path); return; }
    for (const k of keys) {
      if (k === '.') set.insert(path);
      else walk((t as Record<string, unknown>)[k], [...path, k]);
    }
  };
  walk(tree, []);
  return set;
}

// ---- path elements ---------------------------------------------------------------------------

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (v: unknown): PathElement => `v:${JSON.stringify(v)}`;
export const indexElement = (i: number): PathElement => `i:${i}`;

/** `k:{"containerPort":80,"protocol":"TCP"}`: the key fields, sorted by name, as JSON. */
export function keyElement(item: Record<string, unknown>, keys: readonly string[], defaults?: Readonly<Record<string, unknown>>): PathElement {
  const id: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    const v = item[k] ?? defaults?.[k];
    if (v !== undefined) id[k] = v;
  }
  return `k:${JSON.stringify(id)}`;
}

/** The path as structured-merge-diff prints it in conflicts: `.spec.containers[name="c"].image`, `[="x"]`, `[0]`. */
export function pathString(path: PathElement[]): string {
  let s = '';
  for (const pe of path) {
    const body = pe.slice(2);
    switch (pe[0]) {
      case 'f': s += `.${body}`; break;
      case 'k': {
        const id = JSON.parse(body) as Record<string, unknown>;
        s += `[${Object.entries(id).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
        break;
      }
      case 'v': s += `[=${body}]`; break;
      default: s += `[${body}]`;
    }
  }
  return s;
}
