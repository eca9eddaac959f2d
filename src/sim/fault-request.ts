// Validates a control-endpoint fault request before anything is applied: a bad field answers 400 naming it, so a typo
// or an absurd value (HTTP 999, a delay of 1e12 ms) never silently becomes a fault.
import type { DelayRule, FailRule, FaultRequest, RequestVerb } from './faults.js';
import { badRequest } from './status.js';

const VERBS: readonly RequestVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'discovery', 'other'];
/** Longest delay a rule may ask for: past this a request would outlive any client's timeout anyway. */
export const MAX_DELAY_MS = 600_000;
const MAX_COUNT = 1_000_000;
const MAX_RETRY_AFTER = 3600;
/** Periodic watch drops: at least every 10 ms (faster would only burn CPU), at most every day. */
const MIN_DROP_MS = 10;
const MAX_DROP_MS = 86_400_000;

type Obj = Record<string, unknown>;

/** Parses and checks the JSON body of POST /_kwatch/faults. */
export function parseFaultRequest(body: string): FaultRequest {
  let parsed: unknown;
  try { parsed = JSON.parse(body || '{}'); } catch { throw badRequest('the fault request must be a JSON object'); }
  const req = object(parsed, 'the fault request');
  only(req, ['reset', 'dropWatches', 'dropWatchesEvery', 'compact', 'fail', 'delay', 'cutWatch', 'dropInitialEventsEnd'], 'the fault request');
  if (req.reset !== undefined) bool(req.reset, 'reset');
  if (req.dropInitialEventsEnd !== undefined) bool(req.dropInitialEventsEnd, 'dropInitialEventsEnd');
  if (req.compact !== undefined) bool(req.compact, 'compact');
  if (req.dropWatches !== undefined && typeof req.dropWatches !== 'boolean' && req.dropWatches !== 'end' && req.dropWatches !== 'reset') {
    throw badRequest(`dropWatches: must be true, false, "end" or "reset" (got ${show(req.dropWatches)})`);
  }
  if (req.dropWatchesEvery !== undefined && req.dropWatchesEvery !== null) {
    const every = object(req.dropWatchesEvery, 'dropWatchesEvery');
    only(every, ['ms', 'events'], 'dropWatchesEvery');
    if (every.ms === undefined && every.events === undefined) throw badRequest('dropWatchesEvery: give "ms" or "events" (or null to stop)');
    if (every.ms !== undefined && every.ms !== 0) integer(every.ms, 'dropWatchesEvery.ms', MIN_DROP_MS, MAX_DROP_MS);
    if (every.events !== undefined) integer(every.events, 'dropWatchesEvery.events', 0, MAX_COUNT);
  }
  for (const [i, r] of list(req.fail)) failRule(r, i === undefined ? 'fail' : `fail[${i}]`);
  for (const [i, r] of list(req.delay)) delayRule(r, i === undefined ? 'delay' : `delay[${i}]`);
  if (req.cutWatch !== undefined && typeof req.cutWatch !== 'boolean') {
    const cut = object(req.cutWatch, 'cutWatch');
    only(cut, ['count'], 'cutWatch');
    if (cut.count !== undefined) integer(cut.count, 'cutWatch.count', 1, MAX_COUNT);
  }
  return req as FaultRequest;
}

function failRule(v: unknown, at: string): asserts v is FailRule {
  const r = object(v, at);
  only(r, ['code', 'count', 'retryAfterSeconds', 'verb', 'path'], at);
  if (r.code === undefined) throw badRequest(`${at}.code: required (an HTTP error code, 400-599)`);
  integer(r.code, `${at}.code`, 400, 599);
  if (r.count !== undefined) integer(r.count, `${at}.count`, 1, MAX_COUNT);
  if (r.retryAfterSeconds !== undefined) integer(r.retryAfterSeconds, `${at}.retryAfterSeconds`, 0, MAX_RETRY_AFTER);
  filter(r, at);
}

function delayRule(v: unknown, at: string): asserts v is DelayRule {
  const r = object(v, at);
  only(r, ['ms', 'count', 'verb', 'path'], at);
  if (r.ms === undefined) throw badRequest(`${at}.ms: required (milliseconds, 0-${MAX_DELAY_MS})`);
  if (typeof r.ms !== 'number' || !Number.isFinite(r.ms) || r.ms < 0 || r.ms > MAX_DELAY_MS) throw badRequest(`${at}.ms: must be a number of milliseconds from 0 to ${MAX_DELAY_MS} (got ${show(r.ms)})`);
  if (r.count !== undefined) integer(r.count, `${at}.count`, 1, MAX_COUNT);
  filter(r, at);
}

function filter(r: Obj, at: string): void {
  if (r.path !== undefined && typeof r.path !== 'string') throw badRequest(`${at}.path: must be a string (got ${show(r.path)})`);
  if (r.verb === undefined) return;
  const verbs = Array.isArray(r.verb) ? r.verb : [r.verb];
  for (const v of verbs) if (!VERBS.includes(v as RequestVerb)) throw badRequest(`${at}.verb: ${show(v)} is not one of ${VERBS.join(', ')}`);
}

function list(v: unknown): [number | undefined, unknown][] {
  if (v === undefined) return [];
  if (Array.isArray(v)) return v.map((r, i) => [i, r]);
  return [[undefined, v]];
}

function object(v: unknown, at: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`${at}: must be a JSON object (got ${show(v)})`);
  return v as Obj;
}

function only(o: Obj, keys: string[], at: string): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw badRequest(`${at}: unknown field ${JSON.stringify(k)} (known: ${keys.join(', ')})`);
}

function bool(v: unknown, at: string): void {
  if (typeof v !== 'boolean') throw badRequest(`${at}: must be true or false (got ${show(v)})`);
}

function integer(v: unknown, at: string, min: number, max: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw badRequest(`${at}: must be an integer from ${min} to ${max} (got ${show(v)})`);
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
