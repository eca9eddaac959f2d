// Serves GET of one object and the write verbs: create (POST), update (PUT), patch (merge, JSON, strategic, server-side apply), delete, deletecollection — each with dryRun=All. Object bodies may be JSON or kube protobuf.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimObject } from './api.js';
import { SimApiError } from './api.js';
import { groupVersion, type ResourceType } from './registry.js';
import { queryBool, type ObjectFilter } from './list-options.js';
import type { DeleteRequest } from './controllers/graceful-delete.js';
import type { ServerContext } from './server-context.js';
import { badRequest, conflict, invalid, notFound, unsupportedMediaType } from './status.js';
import { sendJson, sendObject, sendJoined } from './respond.js';
import { acceptedPatchTypes, applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError, strategicMergeSupported } from './patch.js';
import { MalformedProtobufError, UnsupportedProtobufError } from '../wire/protobuf/errors.js';
import { protobufToJson } from '../wire/protobuf/to-json.js';
import { applyFields, fieldManagerOf, updateFields } from './managed-fields/request.js';
import { writeValidator } from './validation/index.js';
import { applyTypeError, checkFields, fieldValidationOf, reportFields, strictBodyError, strictPatchError } from './field-validation.js';
import { listItemParts } from './typed-list-items.js';
import { servedView, type ServedView } from './events/served-view.js';
import { csrSubresourceWrite, isCsrType } from './kinds/platform-admission.js';
import { cannotBeHandled, jsonDepthError, objectDecodeError, unrecognizedObject } from './decode-body.js';
import { parseYamlBody, YamlBodyError } from './yaml-body.js';
import { omitEmpty } from './omit-empty.js';
import { decodeQuantities } from './quantity-fields.js';
import { resizeWrite } from './subresources/pod-resize.js';
import { CBOR, decodeCbor } from './cbor-wire.js';
import { goStrings } from './validation/go-value.js';

/** kube-apiserver's default request body limit (3 MiB). */
const MAX_BODY = 3 * 1024 * 1024;

export function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) { reject(new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 })); req.resume(); return; }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

function parseJson(body: string, what = 'object'): unknown {
  // Go's scanner refuses deep nesting; JSON.parse would accept it and leave recursion elsewhere to overflow.
  const deep = jsonDepthError(body);
  if (deep) throw badRequest(`couldn't get version/kind; json parse error: ${deep}`);
  try {
    return JSON.parse(body);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message} (the sim accepts JSON ${what}s only)`);
  }
}

/**
 * An apply configuration: YAML (JSON being YAML too), read as kube's applyPatcher reads it with sigs.k8s.io/yaml and
 * refused as it refuses it (apiserver pkg/endpoints/handlers/patch.go: 400 "error decoding YAML: …").
 */
function parseApplyConfiguration(body: string): unknown {
  const deep = jsonDepthError(body);
  if (deep) throw badRequest(`couldn't get version/kind; json parse error: ${deep}`);
  try {
    return parseYamlBody(body);
  } catch (err) {
    if (err instanceof YamlBodyError) throw badRequest(`error decoding YAML: ${err.message}`);
    throw err;
  }
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function unsupportedBody(message: string): SimApiError {
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'UnsupportedMediaType', code: 415 });
}

/**
 * A body in a media type no serializer takes: negotiation.NegotiateInputSerializerForMediaType lists the serializers'
 * types, in order (CBOR's last, with its gate).
 */
function unknownBodyFormat(cbor: boolean): SimApiError {
  return unsupportedBody(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF}${cbor ? `, ${CBOR}` : ''}`);
}

/** A YAML body (kube's YAML serializer, sigs.k8s.io/yaml) decoded, or its 400. */
function parseYamlDocument(text: string): unknown {
  try {
    return parseYamlBody(text);
  } catch (err) {
    if (err instanceof YamlBodyError) throw badRequest(`couldn't get version/kind; yaml parse error: ${err.message}`);
    throw err;
  }
}

/**
 * Reads an object body in JSON, YAML, CBOR (with its gate) or, as kubectl's typed clients send built-in kinds, kube
 * protobuf (decoded to the same JSON; a kind or field without a schema is a 415, never silently dropped). Other media
 * types get kube's 415.
 */
async function readObjectBody(req: IncomingMessage, type: ResourceType, cbor = false): Promise<{ value: unknown; text?: string }> {
  const ct = mediaType(req);
  if (ct === PROTOBUF) return { value: decodeProtobuf(await readBodyBytes(req)) };
  // CBOR object bodies with the CBORServingAndStorage gate on (KEP-4222); without it they get the 415 below.
  if (ct === CBOR && cbor) {
    try {
      return { value: decodeCbor(await readBodyBytes(req)) };
    } catch (err) {
      if (err instanceof SimApiError) throw err;
      throw badRequest(`the object provided is unrecognized (must be of type ${type.kind}): ${(err as Error).message}`);
    }
  }
  if (ct === 'application/yaml') {
    // kube decodes a YAML object body with its YAML serializer (sigs.k8s.io/yaml, JSON being a subset).
    const text = await readBody(req);
    const deep = jsonDepthError(text);
    if (deep) throw badRequest(unrecognizedObject(type, deep, text));
    return { value: parseYamlDocument(text) };
  }
  // The media type exactly, as kube matches it (negotiation.NegotiateInputSerializerForMediaType): no `+json`
  // suffix rule, so a patch type sent on a create or update is a 415 there too.
  if (ct === '' || ct === 'application/json') {
    const text = await readBody(req);
    const deep = jsonDepthError(text);
    if (deep) throw badRequest(unrecognizedObject(type, deep, text));
    return { value: parseJson(text), text };
  }
  throw unknownBodyFormat(cbor);
}

function decodeProtobuf(body: Buffer): unknown {
  try {
    return protobufToJson(body);
  } catch (err) {
    if (err instanceof MalformedProtobufError) throw badRequest(err.message);
    if (err instanceof UnsupportedProtobufError) throw unsupportedBody(`the sim could not decode this protobuf body: ${err.message}`);
    throw err;
  }
}

/** dryRun=All or nothing: anything else is kube's 422 on the verb's options (the handlers' Validate{Create,Update,Patch,Delete}Options). */
function parseDryRun(q: URLSearchParams, options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions'): boolean {
  const values = q.getAll('dryRun');
  if (values.some((v) => v !== 'All')) throw invalid(options, 'meta.k8s.io', '', [{ field: 'dryRun', type: 'Unsupported value', goValue: goStrings(values), detail: 'supported values: "All"' }]);
  return values.length > 0;
}

function expectObject(v: unknown): SimObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('Object \'Kind\' is missing in \'' + JSON.stringify(v) + '\'');
  const o = v as SimObject;
  // JSON null decodes into Go's ObjectMeta as its zero value, as an absent member does: validation answers then (422).
  if (o.metadata === undefined || o.metadata === null) o.metadata = {};
  if (typeof o.metadata !== 'object') throw badRequest('metadata must be an object');
  return o;
}

const isObject = (v: unknown): v is object => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A create or update body the kind's Go type cannot hold is a 400, as kube's decoder answers it (a body that is no object at all is expectObject's). */
function checkDecodes(type: ResourceType, body: unknown): void {
  // Quantity's UnmarshalJSON error ends decoding at once, so it wins over a type mismatch (decodeQuantities also puts
  // each quantity in the canonical form kube stores).
  const err = isObject(body) ? decodeQuantities(type, body) ?? objectDecodeError(type, body) : undefined;
  if (err) throw badRequest(cannotBeHandled(type, err));
}

/** A patch whose result the kind cannot hold: kube's 422 on the patched object, before anything is stored. */
function checkPatchedDecodes(type: ResourceType, patched: unknown): void {
  const err = isObject(patched) ? decodeQuantities(type, patched) ?? objectDecodeError(type, patched) : undefined;
  if (err) throw invalid('', '', '', [{ field: 'patch', type: 'Invalid value', value: JSON.stringify(patched), detail: err }]);
}

function checkTypeMeta(type: ResourceType, obj: SimObject): void {
  const gv = groupVersion(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== gv) throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${gv})`);
  if (obj.kind !== undefined && obj.kind !== type.kind) throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${type.kind})`);
}

function checkNamespace(type: ResourceType, obj: SimObject, namespace: string | undefined): void {
  if (!type.namespaced) return;
  // An empty namespace segment (POST …/namespaces//configmaps): kube's EnsureObjectNamespaceMatchesRequestNamespace
  // clears the body's namespace for a request namespace of "", and ValidateObjectMeta then requires one.
  if (namespace === '') throw invalid(type.kind, type.group, obj.metadata.name ?? '', [{ field: 'metadata.namespace', type: 'Required value', detail: '' }]);
  if (obj.metadata.namespace && namespace && obj.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (namespace) obj.metadata.namespace = namespace;
}

/** Where a type's objects are stored and how they look there (events.k8s.io events live as core Events). */
function storageOf(ctx: ServerContext, type: ResourceType): { stored: ResourceType; view: ServedView | undefined } {
  const view = servedView(ctx.store.registry, type);
  return { stored: view?.storage ?? type, view };
}

/** A write of a CSR's approval or status subresource: only that subresource's part of the body counts (likewise a pod's resize). */
function csrSubresourceBody(ctx: ServerContext, type: ResourceType, namespace: string | undefined, name: string, subresource: string | undefined, body: SimObject): SimObject {
  if (subresource === 'resize' && type.group === '' && type.resource === 'pods') {
    const stored = ctx.store.getStored(type, namespace, name);
    return stored ? resizeWrite(stored.obj, body) : body;
  }
  if (!isCsrType(type) || (subresource !== 'approval' && subresource !== 'status')) return body;
  const current = ctx.store.getStored(type, namespace, name);
  return current ? csrSubresourceWrite(subresource, current.obj, body) : body;
}

/**
 * The subresource a write's managedFields entry names: the one it was sent to, as kube builds a field manager per path
 * (installer.go), though the store takes an approval as a status write and a resize as a main one.
 */
function fieldsSubresource(subresource: string | undefined, storedAs: 'main' | 'status' | 'finalize'): string {
  return subresource === 'approval' || subresource === 'resize' ? subresource : storedAs;
}

/** The answer body of a write: the stored object in the shape of the requested API. */
const served = (view: ServedView | undefined, obj: SimObject): SimObject => (view ? view.fromStorage(obj) : obj);

export function handleGet(ctx: ServerContext, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, subresource: string | undefined): void {
  const { stored, view } = storageOf(ctx, type);
  const o = ctx.store.getStored(stored, namespace, name);
  if (!o) throw notFound(type.resource, type.group, name);
  if (subresource && subresource !== 'status' && subresource !== 'approval' && subresource !== 'resize') throw notFound(type.resource, type.group, name);
  sendJson(res, 200, view ? view.json(o.json) : o.json);
}

export async function handleCreate(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, q: URLSearchParams): Promise<void> {
  const dryRun = parseDryRun(q, 'CreateOptions');
  const mode = fieldValidationOf(q, 'CreateOptions');
  const { value: body, text } = await readObjectBody(req, type, ctx.featureGates?.CBORServingAndStorage === true);
  checkDecodes(type, body);
  const obj = expectObject(body);
  checkTypeMeta(type, obj);
  checkNamespace(type, obj, namespace);
  const problems = checkFields(type, obj, text, mode);
  reportFields(res, mode, problems, strictBodyError(type, problems));
  omitEmpty(type, obj);
  const { stored, view } = storageOf(ctx, type);
  const created = ctx.store.createObject(stored, view ? view.toStorage(obj) : obj, { dryRun, fields: updateFields(type, fieldManagerOf(q, req)), validate: writeValidator(type, 'main', ctx.store) });
  await admissionWritten(ctx);
  sendObject(res, 201, served(view, created));
}

export async function handleUpdate(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, subresource: string | undefined, q: URLSearchParams): Promise<void> {
  const dryRun = parseDryRun(q, 'UpdateOptions');
  const mode = fieldValidationOf(q, 'UpdateOptions');
  const { value: body, text } = await readObjectBody(req, type, ctx.featureGates?.CBORServingAndStorage === true);
  checkDecodes(type, body);
  const obj = expectObject(body);
  checkTypeMeta(type, obj);
  checkNamespace(type, obj, namespace);
  const problems = checkFields(type, obj, text, mode);
  reportFields(res, mode, problems, strictBodyError(type, problems));
  omitEmpty(type, obj);
  if (obj.metadata.name && obj.metadata.name !== name) throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
  obj.metadata.name = name;
  const sub = subresource === 'status' || subresource === 'finalize' ? subresource : subresource === 'approval' ? 'status' : 'main';
  const { stored, view } = storageOf(ctx, type);
  const written = csrSubresourceBody(ctx, type, namespace, name, subresource, obj);
  const updated = ctx.store.updateObject(stored, view ? view.toStorage(written) : written, { dryRun, subresource: sub, through: subresource, fields: updateFields(type, fieldManagerOf(q, req), fieldsSubresource(subresource, sub)), validate: writeValidator(type, subresource === 'resize' ? 'resize' : sub, ctx.store) });
  await admissionWritten(ctx);
  sendObject(res, 200, served(view, updated));
}

export async function handlePatch(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, subresource: string | undefined, q: URLSearchParams): Promise<void> {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  // kube checks the patch type against its list before anything else, the options after it (handlers/patch.go).
  const accepted = acceptedPatchTypes(type.group, ctx.featureGates?.CBORServingAndStorage === true);
  if (!accepted.includes(contentType)) throw unsupportedMediaType(accepted);
  const dryRun = parseDryRun(q, 'PatchOptions');
  const bytes = await readBodyBytes(req);
  // An apply configuration in CBOR (KEP-4222) is read as the same JSON value (accepted only with the gate on).
  let body = bytes.toString('utf8');
  if (contentType === 'application/apply-patch+cbor') {
    // kube's applyPatcher wraps any unmarshal error, CBOR's too, as "error decoding YAML" (handlers/patch.go); the cause
    // after it is cborg's wording, not fxamacker/cbor's.
    try { body = JSON.stringify(decodeCbor(bytes)); } catch (err) { throw badRequest(`error decoding YAML: ${(err as Error).message}`); }
  }
  const { stored, view } = storageOf(ctx, type);
  const storedCurrent = ctx.store.getStored(stored, namespace, name);
  // Patches apply to the object in the shape of the API they were sent to.
  const current = storedCurrent && view ? { obj: view.fromStorage(storedCurrent.obj), meta: storedCurrent.meta, rv: storedCurrent.rv } : storedCurrent;
  const opts = { dryRun, subresource: subresource === 'status' || subresource === 'approval' ? 'status' as const : 'main' as const };
  const manager = fieldManagerOf(q, req);
  const apply = contentType === 'application/apply-patch+yaml' || contentType === 'application/apply-patch+cbor';
  const mode = fieldValidationOf(q, 'PatchOptions');
  if (!apply && q.get('force') !== null) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [{ field: 'force', type: 'Forbidden', detail: 'may not be specified for non-apply patch' }]);
  }
  let result: unknown;
  try {
    switch (contentType) {
      case 'application/merge-patch+json':
        if (!current) throw notFound(type.resource, type.group, name);
        result = applyMergePatch(current.obj, parseJson(body, 'patch'));
        break;
      case 'application/json-patch+json':
        if (!current) throw notFound(type.resource, type.group, name);
        result = applyJsonPatch(current.obj, parseJson(body, 'patch'));
        break;
      case 'application/strategic-merge-patch+json':
        if (!current) throw notFound(type.resource, type.group, name);
        result = applyStrategicMergePatch(current.obj, parseJson(body, 'patch'), type.kind);
        break;
      case 'application/apply-patch+yaml':
      case 'application/apply-patch+cbor':
        return await serverSideApply(ctx, res, type, namespace, name, body, q, { ...opts, manager, fieldsSubresource: fieldsSubresource(subresource, opts.subresource) });
      default:
        throw unsupportedMediaType(accepted);
    }
  } catch (err) {
    if (err instanceof PatchError) throw patchFailure(err);
    throw err;
  }
  checkPatchedDecodes(type, result);
  const next = expectObject(result);
  // Duplicates are looked for in a merge patch's own text (its paths are the object's); a JSON patch has none to report.
  const problems = checkFields(type, next, contentType === 'application/json-patch+json' ? undefined : body, mode);
  reportFields(res, mode, problems, strictPatchError(problems));
  omitEmpty(type, next);
  // Identity fields come from the URL and the stored object; a resourceVersion in the patch is a precondition.
  next.metadata.name = name;
  if (type.namespaced) next.metadata.namespace = current!.meta.namespace;
  if (next.metadata.resourceVersion === undefined || next.metadata.resourceVersion === '') next.metadata.resourceVersion = String(current!.rv);
  next.kind = type.kind;
  next.apiVersion = groupVersion(type);
  const written = csrSubresourceBody(ctx, type, namespace, name, subresource, next);
  const updated = ctx.store.updateObject(stored, view ? view.toStorage(written) : written, { ...opts, through: subresource, fields: updateFields(type, manager, fieldsSubresource(subresource, opts.subresource)), validate: writeValidator(type, subresource === 'resize' ? 'resize' : opts.subresource, ctx.store) });
  await admissionWritten(ctx);
  sendObject(res, 200, served(view, updated));
}

function patchFailure(err: PatchError): SimApiError {
  const reason = err.code === 422 ? 'Invalid' : err.code === 409 ? 'Conflict' : 'BadRequest';
  // NewGenericServerResponse carries the patch library's own text (e.g. "testing value /x failed: test failed") as its one cause.
  const details = err.detail ? { details: { causes: [{ reason: 'UnexpectedServerResponse', message: err.detail }] } } : {};
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason, code: err.code, ...details });
}

/**
 * Server-side apply: the applied configuration is merged into the live object like a merge patch, or creates the
 * object when it does not exist; field ownership (managed-fields/) records it as the manager's Apply entry, prunes
 * what it no longer applies and refuses changes to fields others own (409) unless force. kubectl sends JSON.
 */
async function serverSideApply(ctx: ServerContext, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, body: string, q: URLSearchParams, opts: { dryRun: boolean; subresource: 'status' | 'main'; manager: string; fieldsSubresource: string }): Promise<void> {
  if (!q.get('fieldManager')) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [{ field: 'fieldManager', type: 'Required value', detail: 'is required for apply patch' }]);
  }
  const config = parseApplyConfiguration(body);
  // What the manager applies, before the identity fields below are filled in (they are never owned anyway).
  const ownConfig = structuredClone(config) as SimObject;
  checkDecodes(type, config);
  const applied = expectObject(config);
  const untyped = applyTypeError(type, namespace, name, applied);
  if (untyped) throw untyped;
  const { stored, view } = storageOf(ctx, type);
  // Field ownership is kept on the stored shape.
  const fields = applyFields(type, opts.manager, opts.fieldsSubresource, view ? view.toStorage(ownConfig) : ownConfig, queryBool(q.get('force')) === true);
  checkTypeMeta(type, applied);
  if (applied.metadata.name && applied.metadata.name !== name) throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
  checkNamespace(type, applied, namespace);
  const current = ctx.store.getStored(stored, namespace, name);
  if (!current) {
    applied.metadata.name = name;
    omitEmpty(type, applied);
    const created = ctx.store.createObject(stored, view ? view.toStorage(applied) : applied, { dryRun: opts.dryRun, fields, validate: writeValidator(type, 'main', ctx.store) });
    await admissionWritten(ctx);
    sendObject(res, 201, served(view, created));
    return;
  }
  const rv = applied.metadata.resourceVersion;
  if (rv && rv !== String(current.rv)) throw conflict(type.resource, type.group, name);
  const live = view ? view.fromStorage(current.obj) : current.obj;
  // Lists with merge keys (containers by name, …) merge item by item as in kube's structured merge, which keeps the
  // live order and appends new elements; others replace.
  const merged = expectObject(strategicMergeSupported(type.group, type.kind) ? applyStrategicMergePatch(live, applied, type.kind, 'structured') : applyMergePatch(live, applied));
  merged.metadata.resourceVersion = String(current.rv);
  omitEmpty(type, merged);
  const updated = ctx.store.updateObject(stored, view ? view.toStorage(merged) : merged, { dryRun: opts.dryRun, subresource: opts.subresource, fields, validate: writeValidator(type, opts.subresource, ctx.store) });
  await admissionWritten(ctx);
  sendObject(res, 200, served(view, updated));
}

/** A write is answered once what admission wrote for it (the quotas' status.used, batched per turn) is stored. */
async function admissionWritten(ctx: ServerContext): Promise<void> {
  const pending = ctx.store.admissionWrites?.();
  if (pending) await pending;
}

interface DeleteOptions { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: string[]; gracePeriodSeconds?: number | string; propagationPolicy?: string; orphanDependents?: boolean }

/**
 * The optional DeleteOptions body: JSON, YAML, or protobuf from typed clients (which encode it like their objects),
 * and CBOR with its gate on. kube negotiates a body's media type only when there is a body, and exactly
 * (apiserver/pkg/endpoints/handlers/delete.go): any other type with a body is its 415.
 */
async function readDeleteOptions(req: IncomingMessage, cbor: boolean): Promise<DeleteOptions | undefined> {
  const body = await readBodyBytes(req);
  if (body.length === 0) return undefined;
  const ct = mediaType(req);
  if (ct === PROTOBUF) return decodeProtobuf(body) as DeleteOptions;
  if (ct === CBOR && cbor) {
    try {
      return decodeCbor(body) as DeleteOptions;
    } catch (err) {
      throw badRequest(`error decoding DeleteOptions: ${(err as Error).message}`);
    }
  }
  const text = body.toString('utf8');
  if (ct === 'application/yaml') return text.trim() ? parseYamlDocument(text) as DeleteOptions : undefined;
  if (ct !== '' && ct !== 'application/json') throw unknownBodyFormat(cbor);
  return text.trim() ? parseJson(text, 'DeleteOption') as DeleteOptions : undefined;
}

/** Without a body, kube reads DeleteOptions from the query (gracePeriodSeconds, propagationPolicy, orphanDependents). */
function deleteOptionsFromQuery(q: URLSearchParams): DeleteOptions {
  const o: DeleteOptions = {};
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null) o.gracePeriodSeconds = grace;
  const policy = q.get('propagationPolicy');
  if (policy !== null) o.propagationPolicy = policy;
  const orphan = q.get('orphanDependents');
  if (orphan !== null) o.orphanDependents = queryBool(orphan) === true;
  return o;
}

/**
 * Whether a DELETE or DELETECOLLECTION is a dry run. kube-apiserver reads DeleteOptions from the body whenever there is
 * one and then ignores the query, its dryRun included (apiserver/pkg/endpoints/handlers/delete.go); only without a body
 * does the query's dryRun count.
 */
function deleteDryRun(body: DeleteOptions | undefined, q: URLSearchParams): boolean {
  if (body === undefined) return parseDryRun(q, 'DeleteOptions');
  return Array.isArray(body.dryRun) && body.dryRun.includes('All');
}

/** The DeleteRequest the delete path works with; a gracePeriodSeconds that is not an integer is a 400, as in kube. */
function deleteRequest(o: DeleteOptions, dryRun: boolean): DeleteRequest {
  let grace: number | undefined;
  if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds !== null) {
    grace = Number(o.gracePeriodSeconds);
    if (!Number.isInteger(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(String(o.gracePeriodSeconds))}: invalid syntax`);
  }
  return { gracePeriodSeconds: grace, propagationPolicy: o.propagationPolicy ?? undefined, orphanDependents: o.orphanDependents ?? undefined, preconditions: o.preconditions, dryRun };
}

export async function handleDelete(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, q: URLSearchParams): Promise<void> {
  const body = await readDeleteOptions(req, ctx.featureGates?.CBORServingAndStorage === true);
  const dryRun = deleteDryRun(body, q);
  const o = body ?? deleteOptionsFromQuery(q);
  const preconditions = o?.preconditions;
  const { stored, view } = storageOf(ctx, type);
  if (ctx.deletes) {
    // kube's DELETE: graceful deletion, finalizers, propagation; the answer is the object or a Success Status.
    const out = ctx.deletes.delete(stored, namespace, name, deleteRequest(o, dryRun));
    sendJson(res, out.code, view && out.body.startsWith('{"kind":"Event","apiVersion":"v1"') ? view.json(out.body) : out.body);
    return;
  }
  // The stored JSON is what serialising the deleted object would give.
  const json = ctx.store.deleteStored(stored, namespace, name, { dryRun, preconditions }).json;
  sendJson(res, 200, view ? view.json(json) : json);
}

export async function handleDeleteCollection(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, filter: ObjectFilter, q: URLSearchParams): Promise<void> {
  const options = await readDeleteOptions(req, ctx.featureGates?.CBORServingAndStorage === true);
  const dryRun = deleteDryRun(options, q);
  const store = ctx.store;
  const { stored, view } = storageOf(ctx, type);
  const snap = store.snapshot(stored, store.currentRevision());
  const [from, to] = store.range(snap.keys, type.namespaced ? namespace : undefined);
  const victims = snap.objects.slice(from, to).filter((o) => filter.empty || filter.matches(o.meta));
  const deleted: string[] = [];
  const lifecycle = ctx.deletes ? deleteRequest(options ?? {}, dryRun) : undefined;
  for (const o of victims) {
    try {
      // With controllers, each item goes as a single DELETE would (pods terminate gracefully), and the answer is
      // the list as it was before, as kube's DeleteCollection returns it.
      if (lifecycle) {
        ctx.deletes!.delete(stored, o.meta.namespace, o.meta.name, lifecycle);
        deleted.push(o.json);
      } else deleted.push(store.deleteStored(stored, o.meta.namespace, o.meta.name, { dryRun }).json);
    } catch (err) {
      // Already gone (e.g. removed with its namespace): deletecollection skips it.
      if (!(err instanceof SimApiError && err.status.code === 404)) throw err;
    }
  }
  const head = `{"kind":"${type.listKind}","apiVersion":"${groupVersion(type)}","metadata":{"resourceVersion":"${store.currentRevision()}"},"items":[`;
  const item = listItemParts(type);
  await sendJoined(res, 200, head, deleted.map((json) => item.rest(view ? view.json(json) : json)), ']}', {}, item.open);
}
