// ConfigMaps (NAME DATA AGE) and Secrets (NAME TYPE DATA AGE): DATA counts keys, never shows values.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { CONFIG_MAP, SECRET } from '../descriptions.js';
import { printer, str } from '../printer.js';

const keys = (m: unknown) => (m && typeof m === 'object' ? Object.keys(m).length : 0);

export const configMapPrinter = printer(
  [NAME_COLUMN, column('Data', 'string', CONFIG_MAP.data), AGE_COLUMN],
  // binaryData keys count as data too.
  (cm, now) => [str(cm.metadata?.name), keys(cm.data) + keys(cm.binaryData), translateTimestampSince(cm.metadata?.creationTimestamp, now)],
);

export const secretPrinter = printer(
  [NAME_COLUMN, column('Type', 'string', SECRET.type), column('Data', 'string', SECRET.data), AGE_COLUMN],
  // stringData is write-only (merged into data on write), so only data counts.
  (s, now) => [str(s.metadata?.name), str(s.type), keys(s.data), translateTimestampSince(s.metadata?.creationTimestamp, now)],
);
