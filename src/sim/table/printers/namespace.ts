// Namespaces: NAME STATUS AGE.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { printer, str } from '../printer.js';

export const namespacePrinter = printer(
  [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
  (ns, now) => [str(ns.metadata?.name), str(ns.status?.phase), translateTimestampSince(ns.metadata?.creationTimestamp, now)],
);
