// kubectl's `-o jsonpath=TEMPLATE`: text with `{…}` actions, evaluated as k8s.io/client-go/util/jsonpath
// does with AllowMissingKeys (kubectl get's default).
//
// An action is a path for the JSONPath evaluator (src/informer/jsonpath.ts), a quoted literal (`{"\n"}`,
// `{'\t'}`), `{range PATH}` … `{end}` (the body once per matched value, evaluated against it), or `{end}`.
// Each action prints what it matched: several values joined by one space, strings as they are, other
// scalars with Go's fmt, maps and lists as compact JSON with sorted keys (Go's json.Marshal).
import { compileJsonPath, type JsonPath } from '../informer/jsonpath.js';
import { goJSON, goSprint } from './go-print.js';

type Node = { kind: 'text'; text: string } | { kind: 'path'; path: JsonPath } | { kind: 'range'; path: JsonPath } | { kind: 'end' };

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** A compiled template: call it with an object to get the text kubectl prints (no newline is added). */
export type JsonPathTemplate = (obj: unknown) => string;

export function compileJsonPathTemplate(template: string): JsonPathTemplate {
  const nodes = parse(template);
  return (obj) => {
    let out = '';
    run(nodes, 0, obj, (s) => (out += s));
    return out;
  };
}

/** The matched values of one path action as kubectl's PrintResults writes them. */
export function printResults(values: unknown[]): string {
  return values.map((v) => (v !== null && typeof v === 'object' ? goJSON(v) : v === null ? 'null' : goSprint(v, 'int64'))).join(' ');
}

/** Evaluates nodes from `start` until an `end` (returned: the index after it) or the end of the list. */
function run(nodes: Node[], start: number, data: unknown, write: (s: string) => void): number {
  for (let i = start; i < nodes.length; i++) {
    const n = nodes[i];
    switch (n.kind) {
      case 'text':
        write(n.text);
        break;
      case 'path':
        write(printResults(n.path(data)));
        break;
      case 'end':
        return i + 1;
      case 'range': {
        const values = n.path(data);
        let after = matchingEnd(nodes, i + 1);
        for (const v of values) after = run(nodes, i + 1, v, write);
        i = after - 1;
        break;
      }
    }
  }
  return nodes.length;
}

/** The index after the `end` that closes a range whose body starts at `from` (the list's length without one). */
function matchingEnd(nodes: Node[], from: number): number {
  let depth = 0;
  for (let i = from; i < nodes.length; i++) {
    if (nodes[i].kind === 'range') depth++;
    else if (nodes[i].kind === 'end' && depth-- === 0) return i + 1;
  }
  return nodes.length;
}

function parse(template: string): Node[] {
  const nodes: Node[] = [];
  let depth = 0;
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    if (open < 0) {
      nodes.push({ kind: 'text', text: template.slice(pos) });
      break;
    }
    if (open > pos) nodes.push({ kind: 'text', text: template.slice(pos, open) });
    const close = actionEnd(template, open + 1);
    const action = template.slice(open + 1, close).trim();
    pos = close + 1;
    if (action === 'end') {
      if (depth === 0) throw new TemplateError('not in range, nothing to end');
      depth--;
      nodes.push({ kind: 'end' });
    } else if (/^range\b/.test(action)) {
      depth++;
      nodes.push({ kind: 'range', path: compilePath(action.slice('range'.length).trim(), template) });
    } else if (/^(["'])[\s\S]*\1$/.test(action)) {
      nodes.push({ kind: 'text', text: unquote(action) });
    } else {
      nodes.push({ kind: 'path', path: compilePath(action, template) });
    }
  }
  return nodes;
}

/** The index of the `}` closing an action that starts at `from`; quotes and brackets may hold braces. */
function actionEnd(template: string, from: number): number {
  let quote = '';
  let brackets = 0;
  for (let i = from; i < template.length; i++) {
    const c = template[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '\n') break;
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') brackets++;
    else if (c === ']') brackets--;
    else if (c === '}' && brackets <= 0) return i;
    else if (c === '{') throw new TemplateError(`unrecognized character in action: U+007B '{' in ${JSON.stringify(template)}`);
  }
  throw new TemplateError(`unclosed action in ${JSON.stringify(template)}`);
}

function compilePath(expr: string, template: string): JsonPath {
  if (/^[A-Za-z_][\w-]*$/.test(expr) && expr !== '$') throw new TemplateError(`unrecognized identifier ${expr} in ${JSON.stringify(template)}`);
  try {
    // `@` is the current object, as `$` is (the evaluator strips a leading `$`).
    return compileJsonPath(`{${expr.replace(/^@/, '') || '.'}}`);
  } catch (err) {
    throw new TemplateError((err as Error).message);
  }
}

/** Go's strconv.Unquote for a "…" or '…' literal (kubectl reads a single-quoted one like a double-quoted one). */
function unquote(literal: string): string {
  const body = literal.slice(1, -1);
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{3}|.)/g, (_, e: string) => {
    switch (e[0]) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case 'u':
      case 'x':
        return String.fromCharCode(parseInt(e.slice(1), 16));
      default:
        return /^[0-7]{3}$/.test(e) ? String.fromCharCode(parseInt(e, 8)) : e;
    }
  });
}
