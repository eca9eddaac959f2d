// One Event, two shapes: core/v1 (what the sim stores) and events.k8s.io/v1. kube keeps a single internal Event and
// converts field by field (pkg/apis/events/v1 conversion): involvedObject ↔ regarding, message ↔ note,
// reportingComponent ↔ reportingController, source ↔ deprecatedSource, firstTimestamp/lastTimestamp/count ↔
// deprecatedFirstTimestamp/deprecatedLastTimestamp/deprecatedCount; reason, type, action, related, eventTime,
// series and reportingInstance keep their names. Each shape carries its Go type's always-written zero fields.
type Json = Record<string, unknown>;

export const EVENTS_V1 = 'events.k8s.io/v1';

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** [core/v1 name, events.k8s.io/v1 name] of every field; metadata is shared. */
const FIELDS: [string, string][] = [
  ['involvedObject', 'regarding'],
  ['reason', 'reason'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/** Go struct order of events.k8s.io/v1 Event (after metadata). */
const V1_ORDER = ['eventTime', 'series', 'reportingController', 'reportingInstance', 'action', 'reason', 'regarding', 'related', 'note', 'type', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount'];

/** Fields each Go type writes even when zero (struct-valued or non-omitempty). */
const CORE_ZERO: Json = { involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '' };
const V1_ZERO: Json = { eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null };

/** An empty string, zero count or empty object is absent in the other shape unless its Go type always writes it. */
const isZero = (v: unknown): boolean => v === undefined || v === '' || v === 0 || (isObject(v) && Object.keys(v).length === 0);

/** The events.k8s.io/v1 shape of a stored core/v1 Event. */
export function coreToEventsV1(core: Json): Json {
  const out: Json = { kind: 'Event', apiVersion: EVENTS_V1, metadata: core.metadata };
  const fields: Json = {};
  for (const [from, to] of FIELDS) if (!isZero(core[from])) fields[to] = core[from];
  for (const k of V1_ORDER) {
    if (fields[k] !== undefined) out[k] = fields[k];
    else if (k in V1_ZERO) out[k] = V1_ZERO[k];
  }
  return out;
}

/** The core/v1 shape of an events.k8s.io/v1 Event (kind/apiVersion set; the store orders metadata). */
export function eventsV1ToCore(v1: Json): Json {
  const out: Json = { kind: 'Event', apiVersion: 'v1', metadata: isObject(v1.metadata) ? v1.metadata : {} };
  for (const [core, from] of FIELDS) {
    if (!isZero(v1[from])) out[core] = v1[from];
    else if (core in CORE_ZERO) out[core] = CORE_ZERO[core];
  }
  return out;
}

/** A stored Event's JSON in events.k8s.io/v1 shape (for reads, lists and watch events). */
export function eventsV1Json(coreJson: string): string {
  return JSON.stringify(coreToEventsV1(JSON.parse(coreJson) as Json));
}
