// kubectl's `-o go-template=TEMPLATE`: the part of Go's text/template that kubectl users type, evaluated
// as kubectl does (over the unstructured object: integers are int64, other numbers float64; a missing
// field prints `<no value>`).
//
// Supported: text and `{{…}}` actions with `{{-`/`-}}` trimming and `{{/* comments */}}`; `.`, `.a.b`,
// `$`, `$var.a`; string ("…", `…`), number, true/false/nil literals; pipelines with `|`; parenthesised
// pipelines; `{{if}}`/`{{else if}}`/`{{else}}`, `{{range}}` (with `$v :=` or `$i, $v :=`), `{{with}}`,
// `{{end}}`, `{{$x := …}}`; functions and, or, not, len, index, print, printf, println, eq, ne, lt, le,
// gt, ge, and kubectl's exists and base64decode. Anything else fails with one line naming it.
import { goSprint } from './go-print.js';
import { TemplateError } from './jsonpath-template.js';

/** A Go int (len, an index, an integer literal): printed and formatted as an int, unlike JSON's float64s. */
class GoInt {
  constructor(readonly value: number) {}
}

type Expr =
  | { kind: 'dot'; chain: string[] }
  | { kind: 'var'; name: string; chain: string[] }
  | { kind: 'lit'; value: unknown }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'pipe'; pipe: Pipeline; chain: string[] };
interface Pipeline {
  decl: string[];
  cmds: Expr[][];
}
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; pipe: Pipeline }
  | { kind: 'if' | 'with'; pipe: Pipeline; then: Node[]; else: Node[] }
  | { kind: 'range'; pipe: Pipeline; body: Node[]; else: Node[] };

const FUNCTIONS = ['and', 'or', 'not', 'len', 'index', 'print', 'printf', 'println', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'exists', 'base64decode'];
const UNSUPPORTED_KEYWORDS = new Set(['define', 'template', 'block', 'break', 'continue']);

export type GoTemplate = (obj: unknown) => string;

export function compileGoTemplate(template: string): GoTemplate {
  const nodes = new Parser(lexActions(template)).parseAll();
  return (obj) => {
    const data = JSON.parse(JSON.stringify(obj)) as unknown; // plain JSON values, as kubectl's unstructured content
    const out: string[] = [];
    execute(nodes, data, [new Map([['$', data]])], out);
    return out.join('');
  };
}

// ---- lexing: text and actions -------------------------------------------------------------------

type Piece = { kind: 'text'; text: string } | { kind: 'action'; text: string };

function lexActions(template: string): Piece[] {
  const pieces: Piece[] = [];
  let pos = 0;
  let trimNext = false;
  while (pos <= template.length) {
    const open = template.indexOf('{{', pos);
    let text = template.slice(pos, open < 0 ? undefined : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      if (text) pieces.push({ kind: 'text', text });
      break;
    }
    let start = open + 2;
    if (/^-[ \t\r\n]/.test(template.slice(start, start + 2))) {
      text = text.replace(/\s+$/, '');
      start += 1;
    }
    if (text) pieces.push({ kind: 'text', text });
    const close = closeOfAction(template, start);
    let body = template.slice(start, close);
    trimNext = /[ \t\r\n]-$/.test(body);
    if (trimNext) body = body.slice(0, -1);
    body = body.trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) pieces.push({ kind: 'action', text: body });
    pos = close + 2;
  }
  return pieces;
}

function closeOfAction(template: string, from: number): number {
  let quote = '';
  for (let i = from; i < template.length; i++) {
    const c = template[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === '`') quote = c;
    else if (c === '}' && template[i + 1] === '}') return i;
  }
  throw new TemplateError(quote ? 'unterminated quoted string' : 'unclosed action');
}

// ---- parsing ------------------------------------------------------------------------------------

type Token = { t: 'str' | 'num' | 'field' | 'var' | 'ident' | 'op'; v: string };

function tokenize(action: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|((?:\.[A-Za-z_]\w*)+|\.)|(\$[A-Za-z_]\w*|\$)((?:\.[A-Za-z_]\w*)*)|([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)|(:=|=|\||\(|\)|,))/y;
  let pos = 0;
  while (pos < action.length) {
    if (/^\s*$/.test(action.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(action);
    if (!m) throw new TemplateError(`unexpected ${JSON.stringify(action.slice(pos).trim()[0])} in {{${action}}}`);
    pos = re.lastIndex;
    if (m[1] !== undefined) tokens.push({ t: 'str', v: JSON.parse(m[1]) as string });
    else if (m[2] !== undefined) tokens.push({ t: 'str', v: m[2].slice(1, -1) });
    else if (m[3] !== undefined) tokens.push({ t: 'num', v: m[3] });
    else if (m[4] !== undefined) tokens.push({ t: 'field', v: m[4] });
    else if (m[5] !== undefined) tokens.push({ t: 'var', v: m[5] + m[6] });
    else if (m[7] !== undefined) {
      if (m[8]) throw new TemplateError(`unexpected ${m[7]}${m[8]} in {{${action}}}`);
      tokens.push({ t: 'ident', v: m[7] });
    } else tokens.push({ t: 'op', v: m[9] });
  }
  return tokens;
}

class Parser {
  private i = 0;
  constructor(private readonly pieces: Piece[]) {}

  parseAll(): Node[] {
    const { nodes, stop } = this.list();
    if (stop) throw new TemplateError(`unexpected {{${stop}}}`);
    return nodes;
  }

  /** Nodes up to an `else…` or `end` action (returned as `stop`), or the end of the template. */
  private list(): { nodes: Node[]; stop?: string } {
    const nodes: Node[] = [];
    while (this.i < this.pieces.length) {
      const p = this.pieces[this.i++];
      if (p.kind === 'text') {
        nodes.push(p);
        continue;
      }
      const word = /^[a-z]+/.exec(p.text)?.[0] ?? '';
      if (word === 'end' || word === 'else') return { nodes, stop: p.text };
      if (UNSUPPORTED_KEYWORDS.has(word)) throw new TemplateError(`{{${word}}} is not supported by kwatch's go-template (supported: if, else, range, with, end, variables and the functions ${FUNCTIONS.join(', ')})`);
      if (word === 'if' || word === 'with' || word === 'range') nodes.push(this.control(word, p.text.slice(word.length)));
      else nodes.push({ kind: 'action', pipe: pipeline(p.text) });
    }
    return { nodes };
  }

  private control(kind: 'if' | 'with' | 'range', rest: string): Node {
    const pipe = pipeline(rest);
    if (pipe.cmds.length === 0) throw new TemplateError(`missing value for ${kind}`);
    const body = this.list();
    let elseNodes: Node[] = [];
    if (body.stop === undefined) throw new TemplateError(`unexpected EOF: {{${kind}}} without {{end}}`);
    if (body.stop !== 'end') {
      const chained = body.stop.slice('else'.length).trim();
      if (chained.startsWith('if ') || chained.startsWith('with ')) {
        // `{{else if …}}` is an `if` inside the else branch that shares this branch's {{end}}.
        const word = chained.startsWith('if') ? 'if' : 'with';
        elseNodes = [this.control(word, chained.slice(word.length))];
      } else {
        if (chained) throw new TemplateError(`unexpected {{${body.stop}}}`);
        const rest2 = this.list();
        if (rest2.stop !== 'end') throw new TemplateError(`expected {{end}} after {{else}}`);
        elseNodes = rest2.nodes;
      }
    }
    return kind === 'range' ? { kind, pipe, body: body.nodes, else: elseNodes } : { kind, pipe, then: body.nodes, else: elseNodes };
  }
}

function pipeline(text: string): Pipeline {
  const tokens = tokenize(text);
  let pos = 0;
  const decl: string[] = [];
  // `$x :=` or `$i, $x :=`
  const look = tokens.findIndex((t) => t.t === 'op' && (t.v === ':=' || t.v === '='));
  if (look >= 0) {
    for (let k = 0; k < look; k++) {
      const t = tokens[k];
      if (t.t === 'var' && !t.v.includes('.')) decl.push(t.v);
      else if (!(t.t === 'op' && t.v === ',')) throw new TemplateError(`bad variable declaration in {{${text.trim()}}}`);
    }
    pos = look + 1;
  }
  const p = new ExprParser(tokens.slice(pos), text);
  return { decl, cmds: p.pipeline(false) };
}

class ExprParser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly text: string,
  ) {}

  pipeline(nested: boolean): Expr[][] {
    const cmds: Expr[][] = [];
    let cmd: Expr[] = [];
    while (this.i < this.tokens.length) {
      const t = this.tokens[this.i];
      if (t.t === 'op' && t.v === ')') {
        if (!nested) throw new TemplateError(`unexpected ) in {{${this.text.trim()}}}`);
        break;
      }
      this.i++;
      if (t.t === 'op' && t.v === '|') {
        if (cmd.length === 0) throw new TemplateError(`missing command before | in {{${this.text.trim()}}}`);
        cmds.push(cmd);
        cmd = [];
        continue;
      }
      cmd.push(this.operand(t, cmd.length === 0));
    }
    if (cmd.length > 0) cmds.push(cmd);
    else if (cmds.length > 0) throw new TemplateError(`missing command after | in {{${this.text.trim()}}}`);
    return cmds;
  }

  private operand(t: Token, first: boolean): Expr {
    switch (t.t) {
      case 'str':
        return { kind: 'lit', value: t.v };
      case 'num':
        return { kind: 'lit', value: /^-?\d+$/.test(t.v) ? new GoInt(Number(t.v)) : Number(t.v) };
      case 'field':
        return { kind: 'dot', chain: t.v === '.' ? [] : t.v.slice(1).split('.') };
      case 'var': {
        const [name, ...chain] = t.v.split('.');
        return { kind: 'var', name, chain };
      }
      case 'ident': {
        if (t.v === 'true' || t.v === 'false') return { kind: 'lit', value: t.v === 'true' };
        if (t.v === 'nil') return { kind: 'lit', value: null };
        if (!FUNCTIONS.includes(t.v)) throw new TemplateError(`function "${t.v}" not defined (kwatch's go-template knows ${FUNCTIONS.join(', ')})`);
        if (!first) return { kind: 'call', name: t.v, args: [] };
        const args: Expr[] = [];
        while (this.i < this.tokens.length && !(this.tokens[this.i].t === 'op' && (this.tokens[this.i].v === '|' || this.tokens[this.i].v === ')'))) args.push(this.operand(this.tokens[this.i++], false));
        return { kind: 'call', name: t.v, args };
      }
      case 'op':
        if (t.v === '(') {
          const inner = this.pipeline(true);
          if (this.tokens[this.i]?.v !== ')') throw new TemplateError(`unclosed ( in {{${this.text.trim()}}}`);
          this.i++;
          let chain: string[] = [];
          const next = this.tokens[this.i];
          if (next?.t === 'field' && next.v !== '.') {
            chain = next.v.slice(1).split('.');
            this.i++;
          }
          return { kind: 'pipe', pipe: { decl: [], cmds: inner }, chain };
        }
        throw new TemplateError(`unexpected ${JSON.stringify(t.v)} in {{${this.text.trim()}}}`);
    }
  }
}

// ---- execution ----------------------------------------------------------------------------------

type Scope = Map<string, unknown>[];

function execute(nodes: Node[], dot: unknown, scope: Scope, out: string[]): void {
  for (const n of nodes) {
    switch (n.kind) {
      case 'text':
        out.push(n.text);
        break;
      case 'action': {
        const v = evalPipeline(n.pipe, dot, scope);
        if (n.pipe.decl.length === 0) out.push(printValue(v));
        break;
      }
      case 'if':
      case 'with': {
        const inner: Scope = [...scope, new Map()];
        const v = evalPipeline(n.pipe, dot, inner);
        if (truth(v)) execute(n.then, n.kind === 'with' ? v : dot, inner, out);
        else execute(n.else, dot, inner, out);
        break;
      }
      case 'range': {
        const v = evalPipeline({ ...n.pipe, decl: [] }, dot, scope);
        const entries: [unknown, unknown][] = Array.isArray(v)
          ? v.map((x, i) => [new GoInt(i), x])
          : isMap(v)
            ? Object.keys(v)
                .sort()
                .map((k) => [k, v[k]])
            : v === undefined || v === null
              ? []
              : fail(`range can't iterate over ${printValue(v)}`);
        if (entries.length === 0) execute(n.else, dot, [...scope, new Map()], out);
        for (const [k, x] of entries) {
          const vars = new Map<string, unknown>();
          const d = n.pipe.decl;
          if (d.length === 1) vars.set(d[0], x);
          if (d.length === 2) {
            vars.set(d[0], k);
            vars.set(d[1], x);
          }
          execute(n.body, x, [...scope, vars], out);
        }
        break;
      }
    }
  }
}

function evalPipeline(p: Pipeline, dot: unknown, scope: Scope): unknown {
  let value: unknown;
  let piped = false;
  for (const cmd of p.cmds) {
    value = evalCommand(cmd, dot, scope, piped ? [value] : []);
    piped = true;
  }
  if (p.decl.length > 0) scope[scope.length - 1].set(p.decl[0], value);
  return value;
}

function evalCommand(cmd: Expr[], dot: unknown, scope: Scope, final: unknown[]): unknown {
  const [head, ...rest] = cmd;
  if (head.kind === 'call') {
    const args = [...[...head.args, ...rest].map((a) => evalExpr(a, dot, scope)), ...final];
    return call(head.name, args);
  }
  if (rest.length > 0 || final.length > 0) throw new TemplateError(`can't give argument to non-function ${describe(head)}`);
  return evalExpr(head, dot, scope);
}

function evalExpr(e: Expr, dot: unknown, scope: Scope): unknown {
  switch (e.kind) {
    case 'lit':
      return e.value;
    case 'dot':
      return fields(dot, e.chain);
    case 'var': {
      for (let i = scope.length - 1; i >= 0; i--) if (scope[i].has(e.name)) return fields(scope[i].get(e.name), e.chain);
      return fail(`undefined variable: ${e.name}`);
    }
    case 'call':
      return call(e.name, []);
    case 'pipe':
      return fields(evalPipeline(e.pipe, dot, scope), e.chain);
  }
}

function fields(v: unknown, chain: string[]): unknown {
  let cur = v;
  for (const name of chain) {
    if (cur === undefined || cur === null) return undefined;
    if (!isMap(cur)) return fail(`can't evaluate field ${name} in type ${goType(cur)}`);
    cur = cur[name];
  }
  return cur;
}

function call(name: string, args: unknown[]): unknown {
  const need = (n: number) => {
    if (args.length !== n) fail(`wrong number of args for ${name}: want ${n} got ${args.length}`);
  };
  switch (name) {
    case 'not':
      need(1);
      return !truth(args[0]);
    case 'and':
      for (const a of args) if (!truth(a)) return a;
      return args[args.length - 1];
    case 'or':
      for (const a of args) if (truth(a)) return a;
      return args[args.length - 1];
    case 'len': {
      need(1);
      const a = args[0];
      if (typeof a === 'string') return new GoInt(Buffer.byteLength(a));
      if (Array.isArray(a)) return new GoInt(a.length);
      if (isMap(a)) return new GoInt(Object.keys(a).length);
      return fail(`error calling len: len of ${a === undefined || a === null ? 'nil pointer' : `type ${goType(a)}`}`);
    }
    case 'index': {
      let cur = args[0];
      for (const k of args.slice(1)) {
        const key = k instanceof GoInt ? k.value : k;
        if (Array.isArray(cur)) {
          if (typeof key !== 'number' || !Number.isInteger(key)) return fail(`error calling index: cannot index slice/array with type ${goType(k)}`);
          if (key < 0 || key >= cur.length) return fail(`error calling index: index out of range: ${key}`);
          cur = cur[key];
        } else if (isMap(cur)) {
          if (typeof key !== 'string') return fail(`error calling index: value has type ${goType(k)}; should be string`);
          cur = cur[key];
        } else if (cur === undefined || cur === null) {
          return fail('error calling index: index of untyped nil');
        } else return fail(`error calling index: can't index item of type ${goType(cur)}`);
      }
      return cur;
    }
    case 'print':
      return goSprintArgs(args);
    case 'println':
      return args.map(printArg).join(' ') + '\n';
    case 'printf':
      if (typeof args[0] !== 'string') return fail('wrong type for value; expected string');
      return goPrintf(args[0], args.slice(1));
    case 'eq':
      if (args.length < 2) return fail('missing argument for comparison');
      return args.slice(1).some((b) => compare(args[0], b) === 0);
    case 'ne':
      need(2);
      return compare(args[0], args[1]) !== 0;
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      need(2);
      const c = compare(args[0], args[1], true);
      return name === 'lt' ? c < 0 : name === 'le' ? c <= 0 : name === 'gt' ? c > 0 : c >= 0;
    }
    case 'exists': {
      let cur = args[0];
      for (const k of args.slice(1)) {
        const key = k instanceof GoInt ? k.value : k;
        if (Array.isArray(cur) && typeof key === 'number' && key >= 0 && key < cur.length) cur = cur[key];
        else if (isMap(cur) && typeof key === 'string' && key in cur) cur = cur[key];
        else return false;
      }
      return true;
    }
    case 'base64decode':
      need(1);
      if (typeof args[0] !== 'string') return fail('error calling base64decode: expected a string');
      return Buffer.from(args[0], 'base64').toString('utf8');
  }
  return fail(`function "${name}" not defined`);
}

function compare(a: unknown, b: unknown, ordered = false): number {
  const x = a instanceof GoInt ? a.value : a;
  const y = b instanceof GoInt ? b.value : b;
  if ((typeof x === 'number' && typeof y === 'number') || (typeof x === 'string' && typeof y === 'string')) return x < y ? -1 : x > y ? 1 : 0;
  if (!ordered && typeof x === 'boolean' && typeof y === 'boolean') return x === y ? 0 : 1;
  if (!ordered && (x === null || x === undefined) && (y === null || y === undefined)) return 0;
  return fail(`error calling ${ordered ? 'lt' : 'eq'}: incompatible types for comparison`);
}

function truth(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (v instanceof GoInt) return v.value !== 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** What an action prints: a missing value (or JSON null) is `<no value>`, as in kubectl's go-template. */
function printValue(v: unknown): string {
  if (v === undefined || v === null) return '<no value>';
  return printArg(v);
}

function printArg(v: unknown): string {
  if (v instanceof GoInt) return String(v.value);
  return goSprint(v, 'int64');
}

/** fmt.Sprint: a space between operands when neither side is a string. */
function goSprintArgs(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += a === undefined ? '<nil>' : printArg(a);
  });
  return out;
}

/** fmt.Sprintf for the verbs templates use: %s %v %d %q %f %t %x %%, with flags `-`/`0`, width and precision. */
function goPrintf(format: string, args: unknown[]): string {
  let argi = 0;
  const out = format.replace(/%([-+# 0]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g, (_, flags: string, width?: string, prec?: string, verb?: string) => {
    if (verb === '%') return '%';
    if (argi >= args.length) return `%!${verb}(MISSING)`;
    const arg = args[argi++];
    let s = formatVerb(verb!, arg, prec === undefined ? undefined : Number(prec));
    const w = width === undefined ? 0 : Number(width);
    if (s.length < w) s = flags.includes('-') ? s.padEnd(w) : flags.includes('0') && /^[-\d.]/.test(s) ? s.padStart(w, '0') : s.padStart(w);
    return s;
  });
  if (argi < args.length) return `${out}%!(EXTRA ${args.slice(argi).map((a) => `${goType(a)}=${printArg(a)}`).join(', ')})`;
  return out;
}

function formatVerb(verb: string, arg: unknown, prec?: number): string {
  const bad = () => (arg === undefined || arg === null ? `%!${verb}(<nil>)` : `%!${verb}(${goType(arg)}=${printArg(arg)})`);
  switch (verb) {
    case 'v':
      return arg === undefined || arg === null ? '<nil>' : printArg(arg);
    case 's':
      if (typeof arg === 'string') return prec === undefined ? arg : arg.slice(0, prec);
      return bad();
    case 'q':
      return typeof arg === 'string' ? JSON.stringify(arg) : bad();
    case 'd':
      return arg instanceof GoInt ? String(arg.value) : typeof arg === 'number' && Number.isInteger(arg) ? String(arg) : bad();
    case 'x':
      if (arg instanceof GoInt) return arg.value.toString(16);
      if (typeof arg === 'number' && Number.isInteger(arg)) return arg.toString(16);
      return typeof arg === 'string' ? Buffer.from(arg).toString('hex') : bad();
    case 'f':
      return typeof arg === 'number' && !Number.isInteger(arg) ? goFixed(arg, prec ?? 6) : bad();
    case 't':
      return typeof arg === 'boolean' ? String(arg) : bad();
  }
  return bad();
}

/** %.Nf as Go rounds it: an exact tie goes to the even digit (JavaScript's toFixed rounds it up: 0.25 → 0.3, Go's 0.2). */
function goFixed(x: number, prec: number): string {
  const exact = Math.abs(x).toFixed(Math.min(100, prec + 30));
  const [int, frac] = exact.split('.');
  const kept = frac.slice(0, prec);
  if (/^50*$/.test(frac.slice(prec)) && Number((int + kept).slice(-1)) % 2 === 0) return `${x < 0 ? '-' : ''}${int}${prec > 0 ? `.${kept}` : ''}`;
  return `${x < 0 && !x.toFixed(prec).startsWith('-') ? '-' : ''}${x.toFixed(prec)}`;
}

function goType(v: unknown): string {
  if (v instanceof GoInt) return 'int';
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function describe(e: Expr): string {
  return e.kind === 'dot' ? `.${e.chain.join('.')}` : e.kind === 'var' ? [e.name, ...e.chain].join('.') : e.kind === 'lit' ? String(e.value) : 'value';
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt);
}

function fail(message: string): never {
  throw new TemplateError(message);
}
