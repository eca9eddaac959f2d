// Custom resources validated against their CRD's structural schema as kube-apiserver does: kube-openapi's schema
// validator (pkg/validation/validate: type, format, string, number, slice, enum, object checks in that order, with
// the messages of pkg/validation/errors/schema.go, "<path> in body …"), turned into field errors by apiextensions'
// kubeOpenAPIResultToFieldErrors (apiextensions-apiserver pkg/apiserver/validation/validation.go): Required,
// NotSupported for enum, TooLongMaxLength, TooMany for maxItems/maxProperties, TypeInvalid for type and format, and
// Invalid with the validator's text for the rest. apiVersion, kind and metadata are validated as ObjectMeta elsewhere.
import type { FieldError } from '../status.js';

type Json = Record<string, unknown>;
export interface StructuralSchema {
  type?: string;
  format?: string;
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  required?: string[];
  enum?: unknown[];
  minimum?: number; maximum?: number; exclusiveMinimum?: boolean; exclusiveMaximum?: boolean; multipleOf?: number;
  minLength?: number; maxLength?: number; pattern?: string;
  minItems?: number; maxItems?: number; uniqueItems?: boolean;
  minProperties?: number; maxProperties?: number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-validations'?: { rule?: string; message?: string }[];
  allOf?: StructuralSchema[]; anyOf?: StructuralSchema[]; oneOf?: StructuralSchema[]; not?: StructuralSchema;
}

/** The JSON type name kube-openapi reports for a value ("integer" for whole numbers). */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, boolean
}

/** Go's %v of a JSON number (float64): 1 → 1, 1.5 → 1.5, 1e21 → 1e+21. */
function goNumber(n: number): string {
  const s = String(n);
  return s.replace(/e\+?(-?)(\d+)$/, (_m, sign: string, exp: string) => `e${sign || '+'}${exp.padStart(2, '0')}`);
}

const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  datetime: (s) => FORMATS['date-time'](s),
  date: (s) => /^\d{4}-\d\d-\d\d$/.test(s) && !Number.isNaN(Date.parse(s)),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  hostname: (s) => s.length <= 255 && /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/.test(s),
  ipv4: (s) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s),
  ipv6: (s) => s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s) && (s.match(/::/g) ?? []).length <= 1,
  cidr: (s) => { const [ip, bits, more] = s.split('/'); return more === undefined && bits !== undefined && /^\d+$/.test(bits) && (FORMATS.ipv4(ip) ? Number(bits) <= 32 : FORMATS.ipv6(ip) && Number(bits) <= 128); },
  mac: (s) => /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  duration: (s) => /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w))+$/.test(s) || /^[-+]?\d+\s*(ns|us|ms|s|m|h|d|w|seconds?|minutes?|hours?|days?|weeks?)$/.test(s),
};

/** Go's regexp (RE2) pattern as a JS RegExp (RE2 is a subset here); undefined when JS cannot read it. */
function compilePattern(p: string): RegExp | undefined {
  try { return new RegExp(p, 'u'); } catch { return undefined; }
}

function walk(v: unknown, s: StructuralSchema, path: string, errs: FieldError[]): void {
  const name = path === '' ? '.' : path;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const types = intOrString ? ['integer', 'string'] : s.type ? [s.type] : [];
  const actual = jsonType(v);
  if (v === null) {
    if (!s.nullable && types.length > 0) errs.push({ field: path, type: 'Invalid value', reason: 'FieldValueTypeInvalid', value: 'null', detail: `${name} in body must be of type ${types.join(',')}: "null"` });
    return;
  }
  // type validator: a whole number is a number too.
  if (types.length > 0 && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
    errs.push({ field: path, type: 'Invalid value', reason: 'FieldValueTypeInvalid', value: actual, detail: `${name} in body must be of type ${types.join(',')}: ${JSON.stringify(actual)}` });
    return;
  }
  if (typeof v === 'string') {
    const check = s.format ? FORMATS[s.format] : undefined;
    if (s.maxLength !== undefined && [...v].length > s.maxLength) errs.push({ field: path, type: 'Too long', value: v, detail: `may not be longer than ${s.maxLength}` });
    if (s.minLength !== undefined && [...v].length < s.minLength) errs.push({ field: path, type: 'Invalid value', value: v, detail: `${name} in body should be at least ${s.minLength} chars long` });
    const re = s.pattern !== undefined ? compilePattern(s.pattern) : undefined;
    if (re && !re.test(v)) errs.push({ field: path, type: 'Invalid value', value: v, detail: `${name} in body should match '${s.pattern}'` });
    if (check && !check(v)) errs.push({ field: path, type: 'Invalid value', reason: 'FieldValueTypeInvalid', value: v, detail: `${name} in body must be of type ${s.format}: ${JSON.stringify(v)}` });
  }
  if (typeof v === 'number') {
    if (s.multipleOf !== undefined && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf)) errs.push({ field: path, type: 'Invalid value', value: v, detail: `${name} in body should be a multiple of ${goNumber(s.multipleOf)}` });
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
      errs.push({ field: path, type: 'Invalid value', value: v, detail: `${name} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${goNumber(s.maximum)}` });
    }
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
      errs.push({ field: path, type: 'Invalid value', value: v, detail: `${name} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${goNumber(s.minimum)}` });
    }
  }
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) errs.push({ field: path, type: 'Invalid value', value: v.length, detail: `${name} in body should have at least ${s.minItems} items` });
    if (s.maxItems !== undefined && v.length > s.maxItems) errs.push({ field: path, type: 'Too many', value: v.length, detail: `must have at most ${s.maxItems} items` });
    if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) errs.push({ field: path, type: 'Invalid value', value: v, detail: `${name} in body shouldn't contain duplicates` });
    if (s.items) v.forEach((item, i) => walk(item, s.items!, `${path}[${i}]`, errs));
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    // Strings as they are, other values as JSON, each quoted (field.NotSupported).
    errs.push({ field: path, type: 'Unsupported value', value: v, detail: `supported values: ${s.enum.map((e) => JSON.stringify(typeof e === 'string' ? e : JSON.stringify(e))).join(', ')}` });
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const obj = v as Json;
    const keys = Object.keys(obj);
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) errs.push({ field: path, type: 'Too many', value: keys.length, detail: `must have at most ${s.maxProperties} items` });
    if (s.minProperties !== undefined && keys.length < s.minProperties) errs.push({ field: path, type: 'Invalid value', value: keys.length, detail: `${name} in body should have at least ${s.minProperties} properties` });
    for (const r of s.required ?? []) {
      if (!(r in obj)) errs.push({ field: path === '' ? r : `${path}.${r}`, type: 'Required value', detail: '' });
    }
    for (const k of keys.sort()) {
      const child = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (child) walk(obj[k], child, path === '' ? k : `${path}.${k}`, errs);
    }
  }
}

/** The field errors of a custom resource against its version's openAPIV3Schema (root apiVersion/kind/metadata skipped). */
export function validateCustomResource(schema: StructuralSchema | undefined, obj: Json): FieldError[] {
  if (!schema) return [];
  const errs: FieldError[] = [];
  const { properties = {}, ...rest } = schema;
  const body: Json = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') body[k] = v;
  const rootProps: Record<string, StructuralSchema> = {};
  for (const [k, v] of Object.entries(properties)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') rootProps[k] = v;
  walk(body, { ...rest, properties: rootProps, required: (schema.required ?? []).filter((r) => r !== 'apiVersion' && r !== 'kind' && r !== 'metadata') }, '', errs);
  return errs;
}

/** The schema's x-kubernetes-validations rules, each with the path of the node that carries it. */
export function celRules(schema: StructuralSchema | undefined): { path: string; rule: string }[] {
  const out: { path: string; rule: string }[] = [];
  const visit = (s: StructuralSchema | undefined, path: string): void => {
    if (!s || typeof s !== 'object') return;
    for (const r of s['x-kubernetes-validations'] ?? []) if (typeof r?.rule === 'string') out.push({ path: path || '<root>', rule: r.rule });
    for (const [k, p] of Object.entries(s.properties ?? {})) visit(p, path ? `${path}.${k}` : k);
    if (s.items) visit(s.items, `${path}[*]`);
    if (typeof s.additionalProperties === 'object') visit(s.additionalProperties, `${path}[*]`);
  };
  visit(schema, '');
  return out;
}
