// A reader for the part of YAML that kubeconfig files are written in: block mappings and sequences indented with
// spaces, plain and simply quoted scalars, `{}` and `[]`, full-line comments. It gives exactly what the `yaml`
// package gives for such a text, or undefined for anything else (flow collections, anchors, tags, block scalars,
// inline comments, escapes, tabs, numbers...), which the caller then hands to `yaml`. Every command reads the
// kubeconfig before its first request, and loading `yaml` for it cost 8–15 ms of each start (issue 29).

/** Thrown inside the reader when the text leaves the subset; never escapes readSimpleYaml. */
class OutsideSubset extends Error {}

interface Line {
  indent: number;
  text: string;
}

type Value = string | boolean | null | Value[] | { [key: string]: Value };

/** The document, or undefined when the text is not in the subset (or is empty: `yaml` says what that means). */
export function readSimpleYaml(text: string): Value | undefined {
  if (/[\t\r\\]/.test(text) || text.charCodeAt(0) === 0xfeff) return undefined;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const body = raw.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (raw.startsWith('---') || raw.startsWith('...') || raw.startsWith('%')) return undefined;
    lines.push({ indent: raw.length - body.length, text: body.trimEnd() });
  }
  if (lines.length === 0 || lines[0].indent !== 0) return undefined;
  try {
    const reader = new Reader(lines);
    const doc = reader.node(0);
    return reader.done() ? doc : undefined;
  } catch (err) {
    if (err instanceof OutsideSubset) return undefined;
    throw err;
  }
}

const outside = (): never => {
  throw new OutsideSubset();
};

const KEY = /^([A-Za-z_][A-Za-z0-9_./-]*):(?: +(.*))?$/;
const isItem = (text: string) => text === '-' || text.startsWith('- ');

class Reader {
  private i = 0;

  constructor(private readonly lines: Line[]) {}

  done(): boolean {
    return this.i === this.lines.length;
  }

  /** The block at lines[i], which starts at `indent`. */
  node(indent: number): Value {
    return isItem(this.lines[this.i].text) ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): Value {
    const out: { [key: string]: Value } = {};
    while (this.i < this.lines.length && this.lines[this.i].indent === indent && !isItem(this.lines[this.i].text)) {
      const m = KEY.exec(this.lines[this.i].text) ?? outside();
      const key = m[1];
      if (Object.hasOwn(out, key) || key === '__proto__') outside();
      this.i++;
      if (m[2] !== undefined && m[2] !== '') {
        out[key] = scalar(m[2]);
        continue;
      }
      const next = this.lines[this.i];
      if (next && next.indent > indent) out[key] = this.node(next.indent);
      // A sequence may sit at its key's own indentation (kubectl writes `clusters:` then `- cluster:`).
      else if (next && next.indent === indent && isItem(next.text)) out[key] = this.sequence(indent);
      else out[key] = null;
    }
    this.expectEnd(indent);
    return out;
  }

  private sequence(indent: number): Value {
    const out: Value[] = [];
    while (this.i < this.lines.length && this.lines[this.i].indent === indent && isItem(this.lines[this.i].text)) {
      const line = this.lines[this.i];
      if (line.text === '-') {
        this.i++;
        const next = this.lines[this.i];
        out.push(next && next.indent > indent ? this.node(next.indent) : null);
        continue;
      }
      const rest = line.text.slice(2);
      if (rest.startsWith(' ') || isItem(rest)) outside();
      if (KEY.test(rest)) {
        // `- name: x` opens a mapping whose keys line up with `name`.
        this.lines[this.i] = { indent: indent + 2, text: rest };
        out.push(this.mapping(indent + 2));
      } else {
        out.push(scalar(rest));
        this.i++;
      }
    }
    this.expectEnd(indent);
    return out;
  }

  /** After a block, the next line must belong to an outer one: less indented, or a key beside a sequence. */
  private expectEnd(indent: number): void {
    const next = this.lines[this.i];
    if (next && next.indent > indent) outside();
  }
}

/** A scalar as the core schema reads it, for the forms the subset takes. */
function scalar(text: string): Value {
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (text.startsWith("'")) {
    if (text.length < 2 || !text.endsWith("'")) outside();
    const inner = text.slice(1, -1);
    if (/'(?!')/.test(inner.replaceAll("''", ''))) outside();
    return inner.replaceAll("''", "'");
  }
  if (text.startsWith('"')) {
    const inner = text.slice(1, -1);
    if (text.length < 2 || !text.endsWith('"') || inner.includes('"')) outside();
    return inner;
  }
  // Indicators, comments, `key: value` inside a value, and anything that may be a number or a special float.
  if (/^[[\]{}&*!|>%@`,?:#]/.test(text) || /^-(?:\s|$)/.test(text) || text.includes(': ') || text.includes(' #') || text.endsWith(':')) outside();
  if (/^[-+]?\.?\d/.test(text) || /^[-+]?\.(?:inf|nan)$/i.test(text)) outside();
  switch (text) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
  }
  return text;
}
