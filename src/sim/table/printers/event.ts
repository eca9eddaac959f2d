// Events (core/v1 and events.k8s.io/v1 print alike): LAST SEEN TYPE REASON OBJECT MESSAGE (+ wide SUBOBJECT SOURCE FIRST SEEN COUNT NAME).
import { parseTimestamp, translateTimestampSince } from '../age.js';
import { column, NAME_COLUMN, wide } from '../columns.js';
import { EVENT } from '../descriptions.js';
import { int, printer, str, type PrintableObject } from '../printer.js';

const COLUMNS = [
  column('Last Seen', 'string', EVENT.lastTimestamp),
  column('Type', 'string', EVENT.type),
  column('Reason', 'string', EVENT.reason),
  column('Object', 'string', EVENT.involvedObject),
  wide(column('Subobject', 'string', EVENT.fieldPath)),
  wide(column('Source', 'string', EVENT.source)),
  column('Message', 'string', EVENT.message),
  wide(column('First Seen', 'string', EVENT.firstTimestamp)),
  wide(column('Count', 'string', EVENT.count)),
  wide(NAME_COLUMN),
];

/** The fields printEvent reads, from either API version (kube converts both to its internal Event first). */
interface EventView {
  name: string;
  involved: { kind?: string; name?: string; fieldPath?: string };
  source: { component?: string; host?: string };
  reportingController: string;
  reportingInstance: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  series?: { count?: number; lastObservedTime?: string };
  type: string;
  reason: string;
  message: string;
}

function view(e: PrintableObject): EventView {
  if (typeof e.apiVersion === 'string' && e.apiVersion.startsWith('events.k8s.io/')) {
    return {
      name: str(e.metadata?.name), involved: e.regarding ?? {}, source: e.deprecatedSource ?? {},
      reportingController: str(e.reportingController), reportingInstance: str(e.reportingInstance),
      firstTimestamp: e.deprecatedFirstTimestamp, lastTimestamp: e.deprecatedLastTimestamp, eventTime: e.eventTime,
      count: int(e.deprecatedCount), series: e.series ?? undefined, type: str(e.type), reason: str(e.reason), message: str(e.note),
    };
  }
  return {
    name: str(e.metadata?.name), involved: e.involvedObject ?? {}, source: e.source ?? {},
    reportingController: str(e.reportingComponent), reportingInstance: str(e.reportingInstance),
    firstTimestamp: e.firstTimestamp, lastTimestamp: e.lastTimestamp, eventTime: e.eventTime,
    count: int(e.count), series: e.series ?? undefined, type: str(e.type), reason: str(e.reason), message: str(e.message),
  };
}

/** formatEventSource: component (or reporting controller), then ", host" (or reporting instance) when there is one. */
function source(v: EventView): string {
  const component = str(v.source.component) || v.reportingController;
  const instance = str(v.source.host) || v.reportingInstance;
  return instance ? `${component}, ${instance}` : component;
}

export const eventPrinter = printer(COLUMNS, (e, now) => {
  const v = view(e);
  const first = parseTimestamp(v.firstTimestamp) !== undefined ? translateTimestampSince(v.firstTimestamp, now) : translateTimestampSince(v.eventTime, now);
  let last = parseTimestamp(v.lastTimestamp) !== undefined ? translateTimestampSince(v.lastTimestamp, now) : first;
  let count = v.count;
  if (v.series) {
    last = translateTimestampSince(v.series.lastObservedTime, now);
    count = int(v.series.count);
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const kind = str(v.involved.kind).toLowerCase();
  const target = v.involved.name ? `${kind}/${v.involved.name}` : kind;
  return [last, v.type, v.reason, target, str(v.involved.fieldPath), source(v), v.message.trim(), first, count, v.name];
});
