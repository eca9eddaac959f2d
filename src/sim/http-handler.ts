// The request entry point: control endpoint, faults, discovery, OpenAPI, health, and dispatch of resource verbs to their handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Discovery } from './discovery.js';
import { parseFaultRequest } from './fault-request.js';
import { compileFilter, parseListOptions } from './list-options.js';
import { handleList } from './list-handler.js';
import { handleOpenApi } from './openapi/handler.js';
import type { RequestLog } from './request-log.js';
import { sendBadRequestText, sendError, sendNotFoundText, sendObject } from './respond.js';
import { checkRouteSegments, handlerNamespace, splitRequestTarget } from './request-path.js';
import { goPathUnescape } from '../wire/kube-path.js';
import { parseResourcePath, requestVerb, underBuiltinGroupVersion } from './router.js';
import type { ServerContext } from './server-context.js';
import { badRequest, methodNotAllowed, routeNotFound } from './status.js';
import { handleWatch } from './watch-handler.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handlePatch, handleUpdate, readBody } from './write-handlers.js';
import { handleScale } from './scale.js';
import { handleGetAsTable } from './table/get-as-table.js';
import { servedView } from './events/served-view.js';
import { tableRequest } from './table/negotiate.js';
import { handleBinding } from './subresources/binding.js';
import { handleEviction } from './subresources/eviction.js';
import { handleTokenRequest } from './subresources/token-request.js';
import { handlePodLog } from './subresources/pod-log.js';
import { SimApiError } from './api.js';
import type { UserInfo } from './auth/authenticate.js';
import { handleReview } from './auth/review-handlers.js';
import { handleOidcDiscovery } from './auth/oidc-discovery.js';
import { isReviewType } from './kinds/auth-kinds.js';
import { warnUnevaluatedRules } from './validation/cel-warning.js';
import { negotiateCbor, serveAsCbor } from './cbor-wire.js';
import { prefersProtobuf, serveAsProtobuf, servesProtobuf } from './protobuf-wire.js';
import { DEFAULT_KUBE_VERSION } from './kube-version.js';

/** Who a request is without users (sim without --users): everyone may do everything, as the admin. */
const OPEN_ADMIN: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };

/** Reserved prefix of the sim's own control endpoints (never subject to faults). */
export const CONTROL_PREFIX = '/_kwatch/';

export function createRequestHandler(ctx: ServerContext, discovery: Discovery, log: RequestLog): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(ctx, discovery, log, req, res).catch((err) => {
      if (!res.headersSent) sendError(res, err);
      else res.destroy();
    });
  };
}

async function handle(ctx: ServerContext, discovery: Discovery, log: RequestLog, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The path as sent, never normalised: kube resolves no dot segments, and `..` must not climb out of a name.
  const target = splitRequestTarget(req.url ?? '/');
  if (!target) return sendBadRequestText(res);
  const { query: q } = target;
  const method = req.method ?? 'GET';
  // The sim's own endpoints match the path as sent, as the request guard checks their token on it.
  if (target.path.startsWith(CONTROL_PREFIX)) return control(ctx, log, req, res, target.path);
  // Everything else routes on Go's decoded req.URL.Path, as kube-apiserver's director and go-restful do.
  const path = goPathUnescape(target.path);

  const route = parseResourcePath(path, ctx.store.registry);
  const verb = route ? requestVerb(method, route, q) : path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/') ? 'discovery' : 'other';
  const record = log.add({ time: Date.now(), method, url: req.url ?? '/', verb, code: 0 });
  res.on('finish', () => { record.code = res.statusCode; });
  res.on('close', () => { if (!record.code) record.code = res.statusCode; });
  // With users (sim --users): 401 for unknown credentials, 403 for what RBAC does not allow.
  const user = ctx.access?.check(req, path, route, verb) ?? OPEN_ADMIN;
  if (user instanceof SimApiError) { await drain(req); return sendError(res, user); }

  const fault = ctx.faults.onRequest(verb, path);
  if (fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
  if (fault.error) { await drain(req); return sendError(res, fault.error); }

  try {
    if (!route) {
      if (method === 'GET' && discovery.handle(req, res, path)) return;
      if (method === 'GET' && handleOpenApi(req, res, path, ctx.store.registry, ctx.kubeVersion ?? DEFAULT_KUBE_VERSION)) return;
      if (method === 'GET' && ctx.auth && handleOidcDiscovery(req, res, path, ctx.auth.tokens)) return;
      if (method === 'GET' && (path === '/healthz' || path === '/livez' || path === '/readyz')) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
        return;
      }
      await drain(req);
      // Under a built-in group/version, go-restful answers: a Status, not Go's plain text.
      if (underBuiltinGroupVersion(path, ctx.store.registry)) return sendError(res, routeNotFound());
      return sendNotFoundText(res);
    }
    // CBOR only where the gate is on and the client prefers it; a CBOR-only Accept with the gate off is kube's 406.
    if (negotiateCbor(req.headers.accept, verb === 'watch', ctx.featureGates?.CBORServingAndStorage ?? false) === 'cbor') serveAsCbor(res, verb === 'watch');
    // Protobuf for the kinds the sim has schemas for (protobuf-wire.ts says which kube serves that the sim does not).
    else if (prefersProtobuf(req.headers.accept) && servesProtobuf(route.type.group ? `${route.type.group}/${route.type.version}` : route.type.version, route.type.kind)) serveAsProtobuf(res, verb === 'watch');
    await serveResource(ctx, req, res, route, verb, q, user);
  } catch (err) {
    await drain(req).catch(() => undefined);
    sendError(res, err);
  }
}

async function serveResource(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, route: NonNullable<ReturnType<typeof parseResourcePath>>, verb: ReturnType<typeof requestVerb>, q: URLSearchParams, user: UserInfo): Promise<void> {
  const { type, name, subresource } = route;
  if (verb === 'other') throw methodNotAllowed(req.method ?? '', type.resource);
  if (subresource !== undefined) {
    const sub = type.subresources.find((s) => s.name === subresource)!;
    if (!SERVED_SUBRESOURCES.has(subresource) || !sub.verbs.includes(verb) || (subresource === 'token' && !ctx.auth)) throw methodNotAllowed(verb, `${type.resource}/${subresource}`);
  } else if (!type.verbs.includes(verb) || (isReviewType(type) && !ctx.auth)) {
    throw methodNotAllowed(verb, type.resource);
  }
  checkRouteSegments(route);
  const namespace = handlerNamespace(route, verb);
  if (subresource === 'scale') return handleScale(ctx, req, res, type, namespace, name!, verb as 'get' | 'update' | 'patch', q);
  if (subresource === 'eviction') return handleEviction(ctx, req, res, type, namespace!, name!, dryRunAll(q));
  if (subresource === 'binding') return handleBinding(ctx, req, res, type, namespace!, name!, dryRunAll(q));
  if (subresource === 'log') return handlePodLog(ctx, req, res, type, namespace!, name!, q);
  if (subresource === 'token') return handleTokenRequest(ctx.store, ctx.auth!.tokens, req, res, type, namespace!, name!, ctx.auth!.now);
  if (isReviewType(type)) return handleReview(ctx.auth!, req, res, type, namespace, user);
  if (verb === 'create' || verb === 'update' || verb === 'patch') warnUnevaluatedRules(res, type);
  switch (verb) {
    case 'list':
    case 'watch': {
      const opts = parseListOptions(q, route.legacyWatch, ctx.featureGates?.WatchList ?? true);
      const filter = compileFilter(type, opts.labelSelector, opts.fieldSelector, name);
      if (verb === 'watch') return handleWatch(ctx, req, res, type, namespace, opts, filter);
      return handleList(ctx, req, res, type, namespace, opts, filter);
    }
    case 'get': {
      if (q.has('watch')) throw badRequest('watch is only supported on collections');
      // kubectl's human-readable output asks for a Table.
      const table = subresource === undefined ? tableRequest(req) : undefined;
      if (table) return handleGetAsTable(ctx, res, servedView(ctx.store.registry, type)?.storage ?? type, namespace, name!, table);
      return handleGet(ctx, res, type, namespace, name!, subresource);
    }
    case 'create':
      if (name !== undefined) throw methodNotAllowed('create', `${type.resource}/${name}`);
      return handleCreate(ctx, req, res, type, namespace, q);
    case 'update':
      return handleUpdate(ctx, req, res, type, namespace, name!, subresource, q);
    case 'patch':
      return handlePatch(ctx, req, res, type, namespace, name!, subresource, q);
    case 'delete':
      return handleDelete(ctx, req, res, type, namespace, name!, q);
    case 'deletecollection': {
      const opts = parseListOptions(q);
      return handleDeleteCollection(ctx, req, res, type, namespace, compileFilter(type, opts.labelSelector, opts.fieldSelector), q);
    }
    default:
      throw methodNotAllowed(verb, type.resource);
  }
}

/** Subresources with handlers; the others discovery lists answer 405. */
const SERVED_SUBRESOURCES = new Set(['status', 'scale', 'finalize', 'eviction', 'binding', 'approval', 'token', 'log', 'resize']);

const dryRunAll = (q: URLSearchParams): boolean => q.getAll('dryRun').includes('All');

/** Consumes an unread request body so keep-alive connections stay usable. */
async function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.method === 'GET' || req.method === 'HEAD') return;
  await readBody(req).catch(() => undefined);
}

/**
 * Control endpoints (never faulted; the request guard has already checked the control token):
 * - `GET /_kwatch/state` → `{ revision, compactedRevision, historySize, watches, objects: {<group/version/resource>: n},
 *   faults: FaultState, controllers: { errors, lastError?, creations: { maxObjects, created, exhausted } } | null (off), requestCount, requests: RequestRecord[] (last 200) }`
 * - `POST /_kwatch/faults` with a FaultRequest JSON body (see faults.ts; checked by fault-request.ts) → the new FaultState.
 * - `POST /_kwatch/compact` → compacts history now; answers the state.
 */
async function control(ctx: ServerContext, log: RequestLog, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  try {
    if (path === '/_kwatch/state' && req.method === 'GET') return sendObject(res, 200, simState(ctx, log));
    if (path === '/_kwatch/faults' && req.method === 'POST') {
      return sendObject(res, 200, ctx.faults.apply(parseFaultRequest(await readBody(req))));
    }
    if (path === '/_kwatch/compact' && req.method === 'POST') {
      await drain(req);
      ctx.faults.compact();
      return sendObject(res, 200, simState(ctx, log));
    }
    await drain(req);
    sendNotFoundText(res);
  } catch (err) {
    sendError(res, err);
  }
}

export function simState(ctx: ServerContext, log: RequestLog): object {
  const s = ctx.store;
  return {
    revision: s.currentRevision(),
    compactedRevision: s.history.compactedRevision,
    historySize: s.history.size,
    watches: ctx.watches.size,
    objects: s.counts(),
    faults: ctx.faults.state(),
    controllers: ctx.deletes ? { errors: ctx.deletes.errors, ...(ctx.deletes.lastError ? { lastError: ctx.deletes.lastError } : {}), creations: ctx.deletes.budgets() } : null,
    requestCount: log.count,
    requests: log.entries().slice(-200),
  };
}
