// Checks every field of one recording body line before replay trusts it: a crafted or damaged line (a `t` of
// 1e308, an event type WHATEVER, a numeric resourceVersion) is named by its line number and left out, instead of
// spinning the virtual clock or breaking a table.
import { WATCH_EVENT_TYPES } from '../types.js';
import type { RecordingEntry, RecordingHeader, RecordingNote } from './recording-format.js';

/** Latest `t` a line may have: a recording runs for at most a year (ms since its start). */
export const MAX_ENTRY_T_MS = 366 * 24 * 3600 * 1000;
const KNOWN_KINDS = new Set(['list', 'watch-start', 'event', 'watch-end', 'error']);
/** Lines about the recording (format 2), known but never replayed as a resource's stream. */
const NOTE_KINDS = new Set(['resource', 'write']);
const EVENT_TYPES = new Set<string>(WATCH_EVENT_TYPES);
const WATCH_END_REASONS = new Set(['eof', 'error', 'aborted']);

export type EntryCheck = { entry: RecordingEntry } | { note: RecordingNote } | { unknownKind: true } | { problem: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entry, or why the line cannot be one; a line of a kind this kwatch does not know (a newer minor version) is neither. */
export function checkEntry(value: unknown, header: RecordingHeader): EntryCheck {
  if (!isObj(value) || typeof value.rec !== 'string') return { problem: 'is not a recording entry (no "rec" field)' };
  if (NOTE_KINDS.has(value.rec)) return checkNote(value, header);
  if (!KNOWN_KINDS.has(value.rec)) return { unknownKind: true };
  const res = value.res ?? 0;
  if (typeof res !== 'number' || !Number.isInteger(res) || res < 0 || res >= header.resources.length) {
    return { problem: `refers to resource ${show(value.res)}, but the header lists ${header.resources.length}` };
  }
  if (typeof value.t !== 'number' || !Number.isFinite(value.t) || value.t < 0 || value.t > MAX_ENTRY_T_MS) {
    return { problem: `has "t" ${show(value.t)}: it must be milliseconds since the recording started, from 0 to ${MAX_ENTRY_T_MS} (a year)` };
  }
  if (typeof value.conn !== 'number' || !Number.isSafeInteger(value.conn) || value.conn < 0) return { problem: `has "conn" ${show(value.conn)}: it must be a request number (a whole number from 0)` };
  const problem = checkBody(value);
  if (problem !== undefined) return { problem };
  const entry = { ...value, res } as Obj;
  if (entry.rec !== 'event' && entry.rec !== 'watch-end') entry.options ??= {};
  return { entry: entry as unknown as RecordingEntry };
}

/** A `resource` line must declare the next index; a `write` line must name a declared resource. */
function checkNote(e: Obj, header: RecordingHeader): EntryCheck {
  if (typeof e.t !== 'number' || !Number.isFinite(e.t) || e.t < 0 || e.t > MAX_ENTRY_T_MS) return { problem: `has "t" ${show(e.t)}: it must be milliseconds since the recording started` };
  if (e.rec === 'resource') {
    const r = e.resource;
    if (!isObj(r) || typeof r.resource !== 'string' || typeof r.kind !== 'string' || typeof r.group !== 'string' || typeof r.version !== 'string' || typeof r.namespaced !== 'boolean') return { problem: 'is a resource line without group, version, resource, kind and namespaced' };
    if (e.res !== header.resources.length && !header.resources.some((h, i) => i === e.res && h.resource === r.resource && h.group === r.group)) return { problem: `declares resource ${show(e.res)}, but ${header.resources.length} are declared before it` };
    return { note: { ...e, conn: 0 } as unknown as RecordingNote };
  }
  if (typeof e.res !== 'number' || !Number.isInteger(e.res) || e.res < 0 || e.res >= header.resources.length) return { problem: `refers to resource ${show(e.res)}, but ${header.resources.length} are declared` };
  if (typeof e.verb !== 'string' || typeof e.key !== 'string' || typeof e.code !== 'number') return { problem: 'is a write line without verb, key and code' };
  return { note: { ...e, conn: 0 } as unknown as RecordingNote };
}

function checkBody(e: Obj): string | undefined {
  switch (e.rec) {
    case 'list': {
      const problem = options(e.options);
      if (problem) return problem;
      if (!isObj(e.page) || !Array.isArray(e.page.items)) return 'is a list page without items';
      const meta = e.page.metadata ?? {};
      if (!isObj(meta)) return 'is a list page whose metadata is not an object';
      for (const f of ['resourceVersion', 'continue']) if (meta[f] !== undefined && typeof meta[f] !== 'string') return `is a list page whose metadata.${f} is ${show(meta[f])}, not a string`;
      for (let i = 0; i < e.page.items.length; i++) {
        const bad = objectProblem(e.page.items[i]);
        if (bad) return `is a list page whose item ${i} ${bad}`;
      }
      for (const f of ['bytes', 'ms']) if (e[f] !== undefined && (typeof e[f] !== 'number' || !Number.isFinite(e[f]) || (e[f] as number) < 0)) return `has "${f}" ${show(e[f])}, not a size`;
      return undefined;
    }
    case 'watch-start':
      return options(e.options);
    case 'event': {
      if (!isObj(e.event)) return 'is an event without a type and object';
      const { type, object } = e.event;
      if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return `is an event of type ${show(type)}: not one of ${WATCH_EVENT_TYPES.join(', ')}`;
      if (!isObj(object)) return `is a ${type} event without an object`;
      if (type === 'ERROR') return undefined;
      const bad = objectProblem(object);
      return bad ? `is a ${type} event whose object ${bad}` : undefined;
    }
    case 'watch-end':
      if (typeof e.reason !== 'string' || !WATCH_END_REASONS.has(e.reason)) return `is a watch end with reason ${show(e.reason)}: not eof, error or aborted`;
      if (e.error !== undefined && typeof e.error !== 'string') return 'is a watch end whose error is not a string';
      return undefined;
    case 'error': {
      if (e.op !== 'list' && e.op !== 'watch') return `is an error of op ${show(e.op)}: not list or watch`;
      const problem = options(e.options);
      if (problem) return problem;
      if (typeof e.message !== 'string') return 'is an error without a message';
      if (e.status !== undefined && (!isObj(e.status) || typeof e.status.code !== 'number')) return 'is an error whose status is not a Status';
      if (e.bytes !== undefined && (typeof e.bytes !== 'number' || !Number.isFinite(e.bytes) || e.bytes < 0)) return `has "bytes" ${show(e.bytes)}, not a size`;
      return undefined;
    }
  }
  return undefined;
}

/** What replay reads of an object: metadata with string name, namespace and resourceVersion. */
function objectProblem(o: unknown): string | undefined {
  if (!isObj(o)) return 'is not an object';
  if (o.metadata === undefined) return undefined;
  if (!isObj(o.metadata)) return 'has metadata that is not an object';
  for (const f of ['name', 'namespace', 'resourceVersion', 'uid']) {
    if (o.metadata[f] !== undefined && typeof o.metadata[f] !== 'string') return `has metadata.${f} ${show(o.metadata[f])}, not a string`;
  }
  return undefined;
}

function options(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v)) return 'has request options that are not an object';
  for (const f of ['resourceVersion', 'continue', 'labelSelector', 'fieldSelector']) if (v[f] !== undefined && typeof v[f] !== 'string') return `has options.${f} ${show(v[f])}, not a string`;
  if (v.limit !== undefined && (typeof v.limit !== 'number' || !Number.isSafeInteger(v.limit) || v.limit < 0)) return `has options.limit ${show(v.limit)}, not a whole number`;
  return undefined;
}

/** A value as a line may quote it: short, JSON. */
function show(v: unknown): string {
  const text = v === undefined ? 'missing' : (JSON.stringify(v) ?? String(v));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
