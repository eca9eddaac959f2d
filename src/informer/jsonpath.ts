// A small kubectl-style JSONPath evaluator returning every matched value (an IndexFunc may need several).
//
// Supported inside one `{…}` (braces optional): `.field`, `field\.with\.dots`, `['quoted']` / `["quoted"]`
// (backslash escapes allowed), `.*` / `[*]`, `[n]` / `[-n]`, `[a:b]`, unions `[0,2]` / `['a','b']`,
// recursive descent `..field`, filters `[?(@.path)]` and `[?(@.path OP literal)]` with OP one of
// == != < <= > >=, and an optional leading `$`. Missing fields yield no value (kubectl's
// allowMissingKeys, its `get -o jsonpath` default). Text around `{…}`, literals and `range`/`end` (the
// `-o jsonpath=` templates) are src/render/jsonpath-template.ts, which uses this evaluator per action.
import { stringifyBounded } from './nesting.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'descend'; name: string | null }
  | { kind: 'indexes'; indexes: number[] }
  | { kind: 'names'; names: string[] }
  | { kind: 'slice'; start?: number; end?: number; step?: number }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

export class JsonPathError extends Error {
  constructor(
    message: string,
    readonly expression: string,
  ) {
    super(`${message} in JSONPath ${JSON.stringify(expression)}`);
    this.name = 'JsonPathError';
  }
}

/** A compiled expression: call it with an object to get every matched value. */
export type JsonPath = (obj: unknown) => unknown[];

export function compileJsonPath(expression: string): JsonPath {
  let text = expression.trim();
  if (text.startsWith('{')) {
    if (!text.endsWith('}')) throw new JsonPathError('unclosed {', expression);
    text = text.slice(1, -1).trim();
  }
  if (text.includes('{') || text.includes('}')) throw new JsonPathError('only a single {…} expression is supported', expression);
  if (text.startsWith('$')) text = text.slice(1);
  const steps = new Parser(text, expression).parse();
  return (obj) => evaluate(steps, [obj]);
}

/** Every value the expression matches in obj. */
export function jsonPathValues(expression: string, obj: unknown): unknown[] {
  return compileJsonPath(expression)(obj);
}

/** A matched value as kubectl prints it: strings as-is, other scalars with String(), objects and arrays as JSON. */
export function formatJsonPathValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || typeof v !== 'object') return String(v);
  return stringifyBounded(v);
}

class Parser {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly expression: string,
  ) {}

  parse(): Step[] {
    const steps: Step[] = [];
    if (this.text === '.' || this.text === '') return steps; // `{.}` and `{}`: the object itself
    while (this.pos < this.text.length) steps.push(this.step());
    return steps;
  }

  private fail(message: string): never {
    throw new JsonPathError(`${message} at offset ${this.pos}`, this.expression);
  }

  private step(): Step {
    const c = this.text[this.pos];
    if (c === '.') {
      if (this.text[this.pos + 1] === '.') {
        this.pos += 2;
        if (this.text[this.pos] === '*') {
          this.pos++;
          return { kind: 'descend', name: null };
        }
        return { kind: 'descend', name: this.name() };
      }
      this.pos++;
      if (this.text[this.pos] === '*') {
        this.pos++;
        return { kind: 'wildcard' };
      }
      if (this.text[this.pos] === '[') return this.bracket();
      return { kind: 'field', name: this.name() };
    }
    if (c === '[') return this.bracket();
    if (c === '@') {
      this.pos++;
      return this.step();
    }
    // A bare first field (`metadata.name`).
    if (this.pos === 0) return { kind: 'field', name: this.name() };
    return this.fail(`unexpected ${JSON.stringify(c)}`);
  }

  /** A dotted name: up to the next unescaped `.` or `[`; `\x` means a literal x. */
  private name(): string {
    let out = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === '\\' && this.pos + 1 < this.text.length) {
        out += this.text[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (c === '.' || c === '[' || c === ' ' || c === ')' || c === '=' || c === '!' || c === '<' || c === '>') break;
      out += c;
      this.pos++;
    }
    if (out === '') this.fail('expected a field name');
    return out;
  }

  private bracket(): Step {
    this.pos++; // [
    this.skipSpaces();
    const c = this.text[this.pos];
    let step: Step;
    if (c === '*') {
      this.pos++;
      step = { kind: 'wildcard' };
    } else if (c === '?') {
      step = this.filter();
    } else if (c === "'" || c === '"') {
      const names = [this.quoted()];
      this.skipSpaces();
      while (this.text[this.pos] === ',') {
        this.pos++;
        this.skipSpaces();
        names.push(this.quoted());
        this.skipSpaces();
      }
      step = { kind: 'names', names };
    } else {
      step = this.numbers();
    }
    this.skipSpaces();
    if (this.text[this.pos] !== ']') this.fail('expected ]');
    this.pos++;
    return step;
  }

  private numbers(): Step {
    const start = this.pos;
    while (this.pos < this.text.length && this.text[this.pos] !== ']') this.pos++;
    const body = this.text.slice(start, this.pos).replace(/\s+/g, '');
    if (body.includes(':')) {
      const parts = body.split(':');
      if (parts.length > 3) this.fail('bad slice');
      const num = (s: string | undefined) => (s === undefined || s === '' ? undefined : this.int(s));
      return { kind: 'slice', start: num(parts[0]), end: num(parts[1]), step: num(parts[2]) };
    }
    return { kind: 'indexes', indexes: body.split(',').map((s) => this.int(s)) };
  }

  private int(s: string): number {
    if (!/^-?\d+$/.test(s)) this.fail(`bad array index ${JSON.stringify(s)}`);
    return Number(s);
  }

  private quoted(): string {
    const q = this.text[this.pos];
    if (q !== "'" && q !== '"') this.fail('expected a quoted name');
    this.pos++;
    let out = '';
    while (this.pos < this.text.length && this.text[this.pos] !== q) {
      if (this.text[this.pos] === '\\' && this.pos + 1 < this.text.length) this.pos++;
      out += this.text[this.pos++];
    }
    if (this.pos >= this.text.length) this.fail('unterminated string');
    this.pos++;
    return out;
  }

  private filter(): Step {
    this.pos++; // ?
    if (this.text[this.pos] !== '(') this.fail('expected ( after ?');
    this.pos++;
    this.skipSpaces();
    if (this.text[this.pos] !== '@') this.fail('a filter starts with @');
    this.pos++;
    const path: Step[] = [];
    while (this.text[this.pos] === '.' || this.text[this.pos] === '[') path.push(this.step());
    this.skipSpaces();
    let op: string | undefined;
    let value: unknown;
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.text.slice(this.pos));
    if (m) {
      op = m[1];
      this.pos += op.length;
      this.skipSpaces();
      value = this.literal();
      this.skipSpaces();
    }
    if (this.text[this.pos] !== ')') this.fail('expected )');
    this.pos++;
    return { kind: 'filter', path, op, value };
  }

  private literal(): unknown {
    const c = this.text[this.pos];
    if (c === "'" || c === '"') return this.quoted();
    const m = /^(-?\d+(?:\.\d+)?|true|false|null)/.exec(this.text.slice(this.pos));
    if (!m) this.fail('expected a literal');
    this.pos += m[1].length;
    return JSON.parse(m[1]);
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ') this.pos++;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function evaluate(steps: readonly Step[], input: unknown[]): unknown[] {
  let current = input;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) apply(step, v, next);
    current = next;
    if (current.length === 0) break;
  }
  return current;
}

function apply(step: Step, v: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isObject(v) && v[step.name] !== undefined) out.push(v[step.name]);
      return;
    case 'names':
      if (isObject(v)) for (const n of step.names) if (v[n] !== undefined) out.push(v[n]);
      return;
    case 'wildcard':
      if (Array.isArray(v)) out.push(...v);
      else if (isObject(v)) out.push(...Object.values(v));
      return;
    case 'indexes':
      if (Array.isArray(v)) {
        for (const i of step.indexes) {
          const j = i < 0 ? v.length + i : i;
          if (j >= 0 && j < v.length) out.push(v[j]);
        }
      }
      return;
    case 'slice': {
      if (!Array.isArray(v)) return;
      const len = v.length;
      const norm = (i: number) => (i < 0 ? Math.max(0, len + i) : Math.min(i, len));
      const s = norm(step.start ?? 0);
      const e = norm(step.end ?? len);
      const st = step.step ?? 1;
      if (st <= 0) return;
      for (let i = s; i < e; i += st) out.push(v[i]);
      return;
    }
    case 'descend':
      descend(v, step.name, out);
      return;
    case 'filter': {
      const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
      for (const item of items) {
        const found = evaluate(step.path, [item]);
        if (step.op === undefined ? found.length > 0 : found.some((f) => compare(f, step.op!, step.value))) out.push(item);
      }
      return;
    }
  }
}

/** `..name` / `..*`: every level below `v`, in document order. Iterative: server data may nest deeper than the stack. */
function descend(root: unknown, name: string | null, out: unknown[]): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const v = pending.pop();
    let children: unknown[];
    if (Array.isArray(v)) children = v;
    else if (isObject(v)) {
      children = Object.values(v);
      if (name !== null && v[name] !== undefined) out.push(v[name]);
    } else continue;
    if (name === null) out.push(...children);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string;
  const y = b as number | string;
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
  return false;
}
