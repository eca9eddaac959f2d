// The JSONPath subset CRD additionalPrinterColumns use (kube evaluates them with client-go's jsonpath, missing keys allowed):
// .field  ['field.with.dots']  [n] [-n]  [*]  [?(@.path)]  [?(@.path op literal)] with op in == != < <= > >=.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

export class JsonPathError extends Error {}

/** Parses a path such as `.status.conditions[?(@.type=="Ready")].status` (an optional `{…}` wrapper is accepted). */
export function parseJsonPath(text: string): Step[] {
  let s = text.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s.startsWith('$')) s = s.slice(1);
  const p = new Parser(s);
  const steps = p.steps();
  if (!p.done()) throw new JsonPathError(`unrecognized JSONPath ${JSON.stringify(text)}`);
  return steps;
}

/** Every value the path selects, in document order; none when a key is missing. */
export function evaluateJsonPath(steps: Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) apply(step, v, next);
    current = next;
  }
  return current;
}

function apply(step: Step, v: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, step.name)) out.push((v as Record<string, unknown>)[step.name]);
      return;
    case 'index':
      if (Array.isArray(v)) {
        const i = step.index < 0 ? v.length + step.index : step.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
      return;
    case 'all':
      if (Array.isArray(v)) out.push(...v);
      else if (v !== null && typeof v === 'object') out.push(...Object.values(v));
      return;
    case 'filter':
      if (!Array.isArray(v)) return;
      for (const item of v) {
        const found = evaluateJsonPath(step.path, item);
        if (step.op === undefined ? found.length > 0 : found.some((x) => compare(x, step.op!, step.value))) out.push(item);
      }
  }
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==': return a === b;
    case '!=': return a !== b;
  }
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string, y = b as number | string;
  switch (op) {
    case '<': return x < y;
    case '<=': return x <= y;
    case '>': return x > y;
    case '>=': return x >= y;
  }
  return false;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean { return this.i >= this.s.length; }

  steps(stopAt = ''): Step[] {
    const steps: Step[] = [];
    while (!this.done() && !stopAt.includes(this.s[this.i])) {
      const c = this.s[this.i];
      if (c === '.') {
        this.i++;
        if (this.s[this.i] === '.') throw new JsonPathError('recursive descent (..) is not supported');
        if (this.s[this.i] === '*') { this.i++; steps.push({ kind: 'all' }); continue; }
        const start = this.i;
        while (!this.done() && !'.[]() =!<>'.includes(this.s[this.i])) this.i++;
        if (this.i === start) throw new JsonPathError(`empty field name at ${start}`);
        steps.push({ kind: 'field', name: this.s.slice(start, this.i) });
      } else if (c === '[') {
        this.i++;
        steps.push(this.bracket());
      } else {
        throw new JsonPathError(`unexpected ${JSON.stringify(c)} at ${this.i}`);
      }
    }
    return steps;
  }

  private bracket(): Step {
    const c = this.s[this.i];
    let step: Step;
    if (c === '*') { this.i++; step = { kind: 'all' }; }
    else if (c === "'" || c === '"') step = { kind: 'field', name: this.quoted() };
    else if (c === '?') {
      this.expect('?'); this.expect('(');
      this.skipSpaces();
      this.expect('@');
      const path = this.steps(' =!<>)');
      this.skipSpaces();
      let op: string | undefined;
      let value: unknown;
      const m = /^(==|!=|<=|>=|<|>)/.exec(this.s.slice(this.i));
      if (m) {
        op = m[1];
        this.i += op.length;
        this.skipSpaces();
        value = this.literal();
        this.skipSpaces();
      }
      this.expect(')');
      step = { kind: 'filter', path, op, value };
    } else {
      const m = /^-?\d+/.exec(this.s.slice(this.i));
      if (!m) throw new JsonPathError(`unsupported subscript at ${this.i}`);
      this.i += m[0].length;
      step = { kind: 'index', index: Number(m[0]) };
    }
    this.expect(']');
    return step;
  }

  private literal(): unknown {
    const c = this.s[this.i];
    if (c === "'" || c === '"') return this.quoted();
    const m = /^(-?\d+(?:\.\d+)?|true|false|null)/.exec(this.s.slice(this.i));
    if (!m) throw new JsonPathError(`unsupported literal at ${this.i}`);
    this.i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : Number(m[0]);
  }

  private quoted(): string {
    const q = this.s[this.i++];
    let out = '';
    while (!this.done() && this.s[this.i] !== q) {
      if (this.s[this.i] === '\\' && this.i + 1 < this.s.length) this.i++;
      out += this.s[this.i++];
    }
    this.expect(q);
    return out;
  }

  private skipSpaces(): void {
    while (this.s[this.i] === ' ') this.i++;
  }

  private expect(c: string): void {
    if (this.s[this.i] !== c) throw new JsonPathError(`expected ${JSON.stringify(c)} at ${this.i}`);
    this.i++;
  }
}
