// Parses and validates list/watch query parameters the way kube-apiserver 1.32 does (ValidateListOptions, 400/422 answers).
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import { SelectorError } from './selector-error.js';
import type { ResourceType } from './registry.js';
import type { ObjectSummary } from './history.js';
import { badRequest, invalid, invalidListOptions, type FieldError } from './status.js';
import { queryBool } from '../wire/query-bool.js';

export interface ListOptions {
  watch: boolean;
  labelSelector: string;
  fieldSelector: string;
  /** The raw resourceVersion parameter ("" when absent). */
  resourceVersion: string;
  resourceVersionMatch: '' | 'Exact' | 'NotOlderThan';
  limit: number;
  continue: string;
  /** undefined when absent. */
  timeoutSeconds?: number;
  allowWatchBookmarks: boolean;
  /** undefined when absent. */
  sendInitialEvents?: boolean;
}

export { queryBool };

function int(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** Reads the options; `forceWatch` is set for the deprecated /watch/ paths. Validates like the real server (422/400). */
export function parseListOptions(q: URLSearchParams, forceWatch = false, watchListEnabled = true): ListOptions {
  const match = q.get('resourceVersionMatch') ?? '';
  const opts: ListOptions = {
    watch: forceWatch || queryBool(q.get('watch')) === true,
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
    resourceVersion: q.get('resourceVersion') ?? '',
    resourceVersionMatch: match as ListOptions['resourceVersionMatch'],
    limit: Math.max(0, int(q, 'limit') ?? 0),
    continue: q.get('continue') ?? '',
    timeoutSeconds: int(q, 'timeoutSeconds'),
    allowWatchBookmarks: queryBool(q.get('allowWatchBookmarks')) === true,
    sendInitialEvents: queryBool(q.get('sendInitialEvents')),
  };
  validate(opts, watchListEnabled);
  return opts;
}

/**
 * kube's ValidateListOptions (apimachinery pkg/apis/meta/internalversion/validation/validation.go): every error found,
 * in its order and on its fields, in one 422 — e.g. a watch-list without resourceVersionMatch on a server with WatchList
 * off names both resourceVersionMatch and sendInitialEvents. Refused before any event, so clients fall back to LIST+WATCH.
 */
function validate(o: ListOptions, watchListEnabled: boolean): void {
  const m = o.resourceVersionMatch;
  const errs: FieldError[] = [];
  const forbidden = (field: string, detail: string) => errs.push({ field, type: 'Forbidden', detail });
  if (o.watch) {
    if (o.sendInitialEvents !== undefined) {
      if (m !== 'NotOlderThan') forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
      if (!watchListEnabled) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    }
    if (m !== '') {
      if (o.sendInitialEvents === undefined) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (m !== 'NotOlderThan') errs.push({ field: 'resourceVersionMatch', type: 'Unsupported value', detail: 'supported values: "NotOlderThan"', value: m });
      if (o.continue) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (m !== '') {
      if (o.resourceVersion === '') forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (o.continue) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (m !== 'Exact' && m !== 'NotOlderThan') errs.push({ field: 'resourceVersionMatch', type: 'Unsupported value', detail: 'supported values: "Exact", "NotOlderThan", ""', value: m });
      if (m === 'Exact' && o.resourceVersion === '0') forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (o.sendInitialEvents !== undefined) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (errs.length) throw invalid('ListOptions', 'meta.k8s.io', '', errs);
}

/** Parses a resourceVersion parameter ("" and "0" are 0); a non-numeric one is answered like the real server. */
export function parseResourceVersion(rv: string, watch: boolean): number {
  if (rv === '') return 0;
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    if (watch) throw invalidListOptions('resourceVersion', 'Invalid value', 'invalid resource version', rv);
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  return Number(rv);
}

export interface ObjectFilter {
  /** True when no selector narrows the result (remainingItemCount is only sent then). */
  empty: boolean;
  /** Whether a stored object (by its summary: labels and selectable fields) is selected. */
  matches(obj: ObjectSummary): boolean;
  /** A metadata.name=<n> requirement, if any (name-scoped watches). */
  name?: string;
}

/** Compiles the label and field selectors; syntax errors answer 400 with the parser's message. */
export function compileFilter(type: ResourceType, labelSelector: string, fieldSelector: string, pathName?: string): ObjectFilter {
  try {
    const ls = parseLabelSelector(labelSelector);
    const fs = parseFieldSelector(fieldSelector, type.kind, type.group);
    let name: string | undefined;
    for (const r of fs.requirements) if (r.field === 'metadata.name' && r.op === '=') name = r.value;
    if (pathName !== undefined) {
      if (name !== undefined && name !== pathName) throw badRequest("fieldSelector metadata.name doesn't match requested name");
      name = pathName;
    }
    const byName = pathName !== undefined && fs.requirements.every((r) => r.field !== 'metadata.name');
    const empty = ls.empty && fs.empty && !byName;
    if (empty) return { empty: true, matches: () => true };
    const reqs = fs.requirements;
    return {
      empty: false,
      name,
      // Field requirements read the selectable fields computed at write time; a missing one reads as "" (fields.Set.Get).
      matches: (o) => (!byName || o.name === pathName) && ls.matches(o.labels as Record<string, string> | undefined)
        && reqs.every((r) => ((o.fields[r.field] ?? '') === r.value) === (r.op === '=')),
    };
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
}
