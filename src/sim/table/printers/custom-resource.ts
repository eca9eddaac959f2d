// Custom resources: NAME plus the CRD version's additionalPrinterColumns (or the default AGE column), as apiextensions' tableconvertor.
import { parseTimestamp, humanDuration } from '../age.js';
import { column, NAME_COLUMN, type ColumnDefinition } from '../columns.js';
import { OBJECT_META } from '../descriptions.js';
import { goMarshal } from '../go-json.js';
import { evaluateJsonPath, parseJsonPath } from '../jsonpath-lite.js';
import { str, type Printer } from '../printer.js';

export interface PrinterColumn { name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }

/** What a CRD version without additionalPrinterColumns gets. */
const DEFAULT_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', description: OBJECT_META.creationTimestamp, jsonPath: '.metadata.creationTimestamp' }];

/** A JSONPath value printed the way jsonpath's PrintResults does: text for scalars, compact JSON for objects and arrays. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object') return goMarshal(v);
  return String(v);
}

/** cellForJSONValue: the value if it fits the column type, else null (an empty cell). */
function typedCell(type: string, v: unknown, now: number): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'integer': return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number': return typeof v === 'number' ? v : null;
    case 'boolean': return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const ms = parseTimestamp(v);
      return ms === undefined ? '<invalid>' : humanDuration(now - ms);
    }
    default: return null;
  }
}

export function customResourcePrinter(printerColumns: PrinterColumn[] | undefined): Printer {
  const defs = printerColumns?.length ? printerColumns : DEFAULT_COLUMNS;
  const columns: ColumnDefinition[] = [NAME_COLUMN];
  const paths: (ReturnType<typeof parseJsonPath> | undefined)[] = [];
  for (const c of defs) {
    let path: ReturnType<typeof parseJsonPath> | undefined;
    try { path = parseJsonPath(c.jsonPath); } catch { path = undefined; }
    paths.push(path);
    columns.push(column(c.name, c.type, c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`, { format: c.format, priority: c.priority }));
  }
  return {
    columns,
    row(obj, now) {
      const cells: unknown[] = [str(obj.metadata?.name)];
      defs.forEach((c, i) => {
        const found = paths[i] ? evaluateJsonPath(paths[i]!, obj) : [];
        // Simple paths select one value; like kube, only the first counts.
        if (found.length === 0 || found[0] === null || found[0] === undefined) { cells.push(null); return; }
        cells.push(c.type === 'string' ? asText(found[0]) : typedCell(c.type, found[0], now));
      });
      return { cells };
    },
  };
}
