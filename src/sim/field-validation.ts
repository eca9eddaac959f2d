// kube-apiserver's field validation of written objects (fieldValidation=Strict|Warn|Ignore, Warn when unset): fields
// the kind's schema does not declare are dropped in every mode (as kube's decoder drops them), and reported — Strict
// refuses the write with a 400 listing them and the body's duplicate fields, Warn answers with one Warning header each.
// kube: apiserver/pkg/endpoints/handlers/create.go, update.go and patch.go decode with the strict serializer under Warn
// and Strict, then add the strict-decoding errors as warnings (Warn) or answer them as a BadRequest (Strict).
import type { ServerResponse } from 'node:http';
import type { ResourceType } from './registry.js';
import { SimApiError } from './api.js';
import { badRequest, invalid } from './status.js';
import { fieldTree, unknownFieldSegments, unknownFields, type FieldNode } from './openapi/field-tree.js';
import { listType } from './managed-fields/merge-keys.js';
import { duplicateFields } from './json-duplicate-fields.js';
import { cannotBeHandled } from './decode-body.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The request's directive; anything else is kube's 422 on the options. */
export function fieldValidationOf(q: URLSearchParams, options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): FieldValidation {
  const v = q.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw invalid(options, 'meta.k8s.io', '', [{ field: 'fieldValidation', type: 'Unsupported value', value: v, detail: 'supported values: "", "Ignore", "Strict", "Warn"' }]);
}

/** What validation found: kube's strict-decoding messages, in the order kube lists them. */
export interface FieldProblems { messages: string[] }

/** Drops the fields `obj` has that its kind does not declare; returns each unknown (and, given the JSON text, duplicate) field. */
export function checkFields(type: ResourceType, obj: object, text: string | undefined, mode: FieldValidation): FieldProblems {
  return checkFieldsOf(fieldTree(type), obj, text, mode);
}

/** checkFields for a body whose kind is not the served type's own (the scale subresource's autoscaling/v1 Scale). */
export function checkFieldsOf(tree: FieldNode, obj: object, text: string | undefined, mode: FieldValidation): FieldProblems {
  const unknown = unknownFields(obj, tree, true);
  if (mode === 'Ignore') return { messages: [] };
  const duplicates = text === undefined ? [] : duplicateFields(text);
  return { messages: [...unknown.map((p) => `unknown field "${p}"`), ...duplicates.map((p) => `duplicate field "${p}"`)] };
}

/** Strict on a create or update body: kube's 400 (the body cannot be handled as its kind). */
export function strictBodyError(type: Pick<ResourceType, 'kind' | 'version'>, problems: FieldProblems): SimApiError | undefined {
  return problems.messages.length ? badRequest(cannotBeHandled(type, `strict decoding error: ${problems.messages.join(', ')}`)) : undefined;
}

/** Strict on a patch's result: kube's 400 without the kind prefix. */
export function strictPatchError(problems: FieldProblems): SimApiError | undefined {
  return problems.messages.length ? badRequest(`strict decoding error: ${problems.messages.join(', ')}`) : undefined;
}

/** Applies a directive's outcome: Strict throws, Warn adds one `299 - "…"` Warning header per problem. */
export function reportFields(res: ServerResponse, mode: FieldValidation, problems: FieldProblems, strictError: SimApiError | undefined): void {
  if (problems.messages.length === 0) return;
  if (mode === 'Strict' && strictError) throw strictError;
  if (mode === 'Warn') addWarnings(res, problems.messages);
}

function addWarnings(res: ServerResponse, messages: string[]): void {
  const prior = res.getHeader('Warning');
  const list = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
  res.setHeader('Warning', [...list, ...messages.map((m) => `299 - ${JSON.stringify(m)}`)]);
}

/** Server-side apply of a configuration with undeclared fields: the field manager cannot type it (kube's 500, any directive). */
export function applyTypeError(type: ResourceType, namespace: string | undefined, name: string, config: object): SimApiError | undefined {
  const unknown = unknownFieldSegments(config, fieldTree(type));
  if (unknown.length === 0) return undefined;
  const gv = type.group ? `${type.group}/${type.version}` : `/${type.version}`;
  // kube's Status here has no reason at all (JSON.stringify leaves the undefined out).
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: undefined as unknown as string,
    message: `failed to create typed patch object (${namespace ?? ''}/${name}; ${gv}, Kind=${type.kind}): ${typedPath(config, unknown[0], !type.crd)}: field not declared in schema`, code: 500 });
}

/**
 * A path as structured-merge-diff prints it: `.spec.template.spec.containers[name="web"].foo` — an item of a keyed
 * list named by its key fields (the same keys field ownership uses), of a set by its value, else by its index.
 */
function typedPath(root: unknown, segments: string[], builtIn: boolean): string {
  let out = '';
  let cur: unknown = root;
  const fields: string[] = [];
  for (const seg of segments) {
    if (seg.startsWith('.')) {
      fields.push(seg.slice(1));
      out += seg;
      cur = (cur as Record<string, unknown> | undefined)?.[seg.slice(1)];
      continue;
    }
    const items = Array.isArray(cur) ? cur : [];
    const item: unknown = items[Number(seg.slice(1, -1))];
    const lt = listType(fields, items, builtIn);
    if (typeof lt === 'object' && item && typeof item === 'object') {
      out += `[${lt.keys.filter((k) => (item as Record<string, unknown>)[k] !== undefined).map((k) => `${k}=${JSON.stringify((item as Record<string, unknown>)[k])}`).join(',')}]`;
    } else out += seg;
    cur = item;
  }
  return out;
}
