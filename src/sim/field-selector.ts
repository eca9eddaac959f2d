// Field selectors: apimachinery's pkg/fields grammar, per-kind field label conversion and matching.

import type { SimObject } from './api.js';
import { SelectorError } from './selector-error.js';

export interface FieldRequirement {
  /** The field label after conversion (`spec.host` becomes `spec.nodeName`). */
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  /** True when the selector selects everything (no requirements). */
  readonly empty: boolean;
  /** Sorted by their source text, like apimachinery. */
  readonly requirements: readonly FieldRequirement[];
  matches(obj: SimObject): boolean;
}

type Fields = Record<string, string>;

/** One kind's selectable fields: which labels the converter accepts, and their values on an object. */
interface KindFields {
  accepts: readonly string[];
  aliases?: Record<string, string>;
  values(obj: any): Fields;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const bool = (v: unknown): string => (v === true ? 'true' : 'false');
const meta = (obj: any, namespaced: boolean): Fields =>
  namespaced ? { 'metadata.name': str(obj.metadata?.name), 'metadata.namespace': str(obj.metadata?.namespace) } : { 'metadata.name': str(obj.metadata?.name) };

// [SRC kubernetes pkg/apis/core/v1/conversion.go + each registry's ToSelectableFields]. `status.podIPs`
// is accepted by newer servers only (API-SEMANTICS §1.4), so 1.32 rejects it.
const CORE_KINDS: Record<string, KindFields> = {
  Pod: {
    accepts: ['metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
    aliases: { 'spec.host': 'spec.nodeName' },
    // One literal, no spread: the store computes this for every pod it writes (populate writes 100k at once).
    values: (o) => ({
      'metadata.name': str(o.metadata?.name),
      'metadata.namespace': str(o.metadata?.namespace),
      'spec.nodeName': str(o.spec?.nodeName),
      'spec.restartPolicy': str(o.spec?.restartPolicy),
      'spec.schedulerName': str(o.spec?.schedulerName),
      'spec.serviceAccountName': str(o.spec?.serviceAccountName),
      'spec.hostNetwork': bool(o.spec?.hostNetwork),
      'status.phase': str(o.status?.phase),
      // The server reads the first of podIPs; v1 clients may have sent podIP alone.
      'status.podIP': str(o.status?.podIPs?.[0]?.ip ?? o.status?.podIP),
      'status.nominatedNodeName': str(o.status?.nominatedNodeName),
    }),
  },
  Node: {
    accepts: ['metadata.name', 'spec.unschedulable'],
    values: (o) => ({ ...meta(o, false), 'spec.unschedulable': bool(o.spec?.unschedulable) }),
  },
  ReplicationController: {
    accepts: ['metadata.name', 'metadata.namespace', 'status.replicas'],
    values: (o) => ({ ...meta(o, true), 'status.replicas': String(o.status?.replicas ?? 0) }),
  },
  Event: {
    accepts: ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type', 'metadata.namespace', 'metadata.name'],
    values: (o) => ({
      ...meta(o, true),
      'involvedObject.kind': str(o.involvedObject?.kind),
      'involvedObject.namespace': str(o.involvedObject?.namespace),
      'involvedObject.name': str(o.involvedObject?.name),
      'involvedObject.uid': str(o.involvedObject?.uid),
      'involvedObject.apiVersion': str(o.involvedObject?.apiVersion),
      'involvedObject.resourceVersion': str(o.involvedObject?.resourceVersion),
      'involvedObject.fieldPath': str(o.involvedObject?.fieldPath),
      reason: str(o.reason),
      reportingComponent: str(o.reportingComponent),
      source: str(o.source?.component) || str(o.reportingComponent),
      type: str(o.type),
    }),
  },
  Namespace: {
    accepts: ['status.phase', 'metadata.name'],
    values: (o) => ({ ...meta(o, false), 'status.phase': str(o.status?.phase) }),
  },
  Secret: {
    accepts: ['type', 'metadata.namespace', 'metadata.name'],
    values: (o) => ({ ...meta(o, true), type: str(o.type) }),
  },
  Service: {
    accepts: ['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'],
    values: (o) => ({ ...meta(o, true), 'spec.clusterIP': str(o.spec?.clusterIP), 'spec.type': str(o.spec?.type) }),
  },
};

/** runtime.DefaultMetaV1FieldSelectorConversion, for every kind without its own converter (CRs included). */
const DEFAULT_KIND: KindFields = {
  accepts: ['metadata.name', 'metadata.namespace'],
  values: (o) => meta(o, true),
};

/** The kind's own field converter (core kinds only), if it has one. */
function ownFields(kind: string, group: string): KindFields | undefined {
  return group === '' ? CORE_KINDS[kind] : undefined;
}

function kindFields(kind: string, group: string): { fields: KindFields; reject(label: string): string } {
  const own = ownFields(kind, group);
  if (own) return { fields: own, reject: (label) => `field label not supported: ${label}` };
  return { fields: DEFAULT_KIND, reject: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"` };
}

/** The selectable fields of an object, as the server's ToSelectableFields computes them (no reject closure: every write asks). */
export function selectableFields(obj: SimObject, kind: string, group: string): Fields {
  return (ownFields(kind, group) ?? DEFAULT_KIND).values(obj);
}

/** Splits on commas not escaped by a backslash; the escapes stay in the terms. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

/** The first operator occurrence splits the term; the left side has no escaping. */
function splitTerm(term: string): { lhs: string; op: (typeof OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * Parses a `fieldSelector=` string for objects of `kind` in API group `group` ("" = core) and converts
 * each field label as the server does. Throws SelectorError with kube-apiserver's 400 message.
 */
export function parseFieldSelector(s: string, kind: string, group: string): FieldSelector {
  const parsed: { field: string; op: '=' | '!='; value: string }[] = [];
  // Terms are sorted before parsing, so the first error reported is the first in sorted order.
  for (const part of splitTerms(s).sort()) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorError(`invalid selector: '${s}'; can't understand '${part}'`);
    parsed.push({ field: t.lhs, op: t.op === '!=' ? '!=' : '=', value: unescapeValue(t.rhs) });
  }
  const { fields, reject } = kindFields(kind, group);
  const requirements = parsed.map((r): FieldRequirement => {
    const field = fields.aliases?.[r.field] ?? r.field;
    if (!fields.accepts.includes(field)) throw new SelectorError(reject(r.field));
    return { ...r, field };
  });
  return {
    empty: requirements.length === 0,
    requirements,
    matches(obj) {
      if (requirements.length === 0) return true;
      const values = fields.values(obj);
      // A field missing from the set reads as "" (fields.Set.Get).
      return requirements.every((r) => ((values[r.field] ?? '') === r.value) === (r.op === '='));
    },
  };
}
