// Label selectors: apimachinery's pkg/labels grammar, matching, and metav1.LabelSelector evaluation.

import { SelectorError } from './selector-error.js';
import { aggregate, invalidField, isQualifiedName, isValidLabelValue } from './label-validation.js';

/** selection.Operator values, spelled as apimachinery spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and de-duplicated for `in`/`notin` parsed from a string; empty for `exists` and `!`. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** True when the selector selects everything (no requirements). */
  readonly empty: boolean;
  /** Sorted by key, like apimachinery's internalSelector. */
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  /** The canonical form kube prints (keys sorted, `in`/`notin` values sorted). */
  toString(): string;
}

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

// ---- lexer --------------------------------------------------------------------------------------

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'ident' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item { tok: Tok; lit: string }

const LITERAL_TOKENS: Record<string, Tok> = {
  ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(',
};

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // Longest run of special symbols that still forms a token ("!=" but not "!=(").
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        const tok = LITERAL_TOKENS[buf];
        if (tok) last = { tok, lit: buf };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      const start = pos;
      while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) pos++;
      const lit = s.slice(start, pos);
      items.push({ tok: Object.hasOwn(LITERAL_TOKENS, lit) ? LITERAL_TOKENS[lit] : 'ident', lit });
    }
  }
}

// ---- parser -------------------------------------------------------------------------------------

/** In a values position the keywords `in`/`notin` are plain identifiers ("x in (in)"). */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  lookahead(ctx: Context): Item {
    return this.asContext(this.items[this.pos], ctx);
  }

  consume(ctx: Context): Item {
    return this.asContext(this.items[this.pos++], ctx);
  }

  private asContext(item: Item, ctx: Context): Item {
    return ctx === 'values' && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'ident', lit: item.lit } : item;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead('values');
      if (tok === 'ident' || tok === '!') {
        try {
          reqs.push(this.parseRequirement());
        } catch (e) {
          throw new SelectorError(`unable to parse requirement: ${(e as Error).message}`);
        }
        const next = this.consume('values');
        if (next.tok === 'eos') return reqs;
        if (next.tok === ',') {
          const after = this.lookahead('values');
          if (after.tok !== 'ident' && after.tok !== '!') throw new SelectorError(`found '${after.lit}', expected: identifier after ','`);
        } else {
          throw new SelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === 'eos') {
        return reqs;
      } else {
        throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let { tok, lit } = this.consume('values');
    if (tok === '!') {
      operator = '!';
      ({ tok, lit } = this.consume('values'));
    }
    if (tok !== 'ident') throw new Error(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    if (keyErrs.length) throw new Error(invalidField('<nil>', lit, keyErrs.join('; ')));
    const key = lit;
    const after = this.lookahead('values').tok;
    if (after === 'eos' || after === ',') operator ??= 'exists';
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, [], '');

    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(), '');
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume('keyAndOperator');
    switch (tok) {
      case 'in': return 'in';
      case 'notin': return 'notin';
      case '=': return '=';
      case '==': return '==';
      case '!=': return '!=';
      case '>': return 'gt';
      case '<': return 'lt';
      default: throw new Error(`found '${lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead('values');
    if (tok === 'ident' || tok === ',') {
      const s = this.parseIdentifiersList();
      if (this.consume('values').tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === ')') {
      this.consume('values');
      return new Set(['']);
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  /** A comma-separated, possibly empty list: "(a,,b)" and "(,)" carry the empty value. */
  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume('values');
      if (tok === 'ident') {
        s.add(lit);
        const next = this.lookahead('values');
        if (next.tok === ',') continue;
        if (next.tok === ')') return s;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (s.size === 0) s.add('');
        const next = this.lookahead('values').tok;
        if (next === ')') {
          s.add('');
          return s;
        }
        if (next === ',') {
          this.consume('values');
          s.add('');
        }
      } else {
        throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead('values').tok;
    if (ahead === 'eos' || ahead === ',') return new Set(['']);
    const { tok, lit } = this.consume('values');
    if (tok === 'ident') return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

// ---- requirements -------------------------------------------------------------------------------

const INT64 = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;

function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const n = BigInt(s);
  return n > INT64_MAX || n < -INT64_MAX - 1n ? undefined : n;
}

/**
 * labels.NewRequirement: validates and returns the requirement, or throws Error with the aggregated
 * field errors. `path` prefixes field paths ("" for the string parser, whose path is nil).
 */
function newRequirement(key: string, operator: LabelOperator, values: string[], path: string): LabelRequirement {
  const child = (name: string): string => (path ? `${path}.${name}` : name);
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(invalidField(child('key'), key, keyErrs.join('; ')));
  const valuePath = child('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalidField(valuePath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalidField(valuePath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalidField(valuePath, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalidField(valuePath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalidField(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(invalidField(`${valuePath}[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length) throw new Error(aggregate(errs));
  return { key, operator, values };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(labels![r.key]);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(labels![r.key]);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(labels![r.key]);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  switch (r.operator) {
    case '!': return '!' + r.key;
    case 'exists': return r.key;
    case 'in': return `${r.key} in (${values})`;
    case 'notin': return `${r.key} notin (${values})`;
    case 'gt': return `${r.key}>${values}`;
    case 'lt': return `${r.key}<${values}`;
    default: return `${r.key}${r.operator}${values}`;
  }
}

function selectorOf(requirements: LabelRequirement[]): LabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    empty: sorted.length === 0,
    requirements: sorted,
    matches: (labels) => sorted.every((r) => requirementMatches(r, labels)),
    toString: () => sorted.map(requirementString).join(','),
  };
}

/** A selector that matches nothing (a nil metav1.LabelSelector). */
const NOTHING: LabelSelector = { empty: false, requirements: [], matches: () => false, toString: () => '' };

/** Parses a `labelSelector=` string; throws SelectorError with kube-apiserver's message. */
export function parseLabelSelector(s: string): LabelSelector {
  return selectorOf(new Parser(lex(s)).parse());
}

/** A metav1.LabelSelector as JSON (Deployment.spec.selector and friends). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const EXPRESSION_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: null selects nothing, `{}` selects everything. Throws SelectorError
 * for an unknown operator or invalid keys/values, with apimachinery's wording.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return NOTHING;
  const reqs: LabelRequirement[] = [];
  try {
    for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v], ''));
    for (const expr of sel.matchExpressions ?? []) {
      const op = EXPRESSION_OPERATORS[expr.operator];
      if (!op) throw new Error(`"${expr.operator}" is not a valid label selector operator`);
      reqs.push(newRequirement(expr.key, op, [...(expr.values ?? [])], ''));
    }
  } catch (e) {
    throw new SelectorError((e as Error).message);
  }
  return selectorOf(reqs);
}
