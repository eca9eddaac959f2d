// Leases: NAME HOLDER AGE.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { LEASE } from '../descriptions.js';
import { printer, str } from '../printer.js';

export const leasePrinter = printer(
  [NAME_COLUMN, column('Holder', 'string', LEASE.holderIdentity), AGE_COLUMN],
  (l, now) => [str(l.metadata?.name), str(l.spec?.holderIdentity), translateTimestampSince(l.metadata?.creationTimestamp, now)],
);
