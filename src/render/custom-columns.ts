// kubectl's `-o custom-columns=HEADER:PATH,…` and `-o custom-columns-file=FILE`: one row per object, a
// cell per column with every value the JSONPath matched (joined by commas; `<none>` when none), aligned
// by kubectl's tabwriter. Cells are escaped as kubectl escapes them (ESC as ^[, CR as \r).
import { compileJsonPath, type JsonPath } from '../informer/jsonpath.js';
import { formatTabbed } from './columns.js';
import { goSprint, kubectlEscapeTerminal } from './go-print.js';
import { TemplateError } from './jsonpath-template.js';

export interface CustomColumn {
  header: string;
  path: JsonPath;
}

/** `NAME:.metadata.name,NODE:.spec.nodeName` (kubectl's inline form). */
export function parseCustomColumnsSpec(spec: string): CustomColumn[] {
  if (spec.length === 0) throw new TemplateError('custom-columns format specified but no custom columns given');
  return spec.split(',').map((part) => {
    const colon = part.indexOf(':');
    if (colon < 0) throw new TemplateError(`unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>`);
    return { header: part.slice(0, colon), path: relaxedPath(part.slice(colon + 1)) };
  });
}

/** The file form: a line of headers, then a line of paths, each separated by whitespace. */
export function parseCustomColumnsTemplate(text: string): CustomColumn[] {
  const lines = text.split('\n');
  const split = (l: string | undefined) => (l ?? '').split(/\s+/).filter(Boolean);
  if (lines.length < 1 || lines[0] === '' && lines.length === 1) throw new TemplateError('invalid template, missing header line. Expected format is one line of space separated headers, one line of space separated column specs.');
  if (lines.length < 2) throw new TemplateError('invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs.');
  const headers = split(lines[0]);
  const specs = split(lines[1]);
  if (headers.length !== specs.length) throw new TemplateError(`number of headers (${headers.length}) and field specifications (${specs.length}) don't match`);
  return headers.map((header, i) => ({ header, path: relaxedPath(specs[i]) }));
}

/** kubectl's RelaxedJSONPathExpression: `metadata.name`, `.metadata.name`, `{metadata.name}` and `{.metadata.name}` are one path. */
function relaxedPath(expr: string): JsonPath {
  const m = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/.exec(expr);
  if (!m) throw new TemplateError("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'");
  try {
    return compileJsonPath(`{.${m[1] ?? m[2]}}`);
  } catch (err) {
    throw new TemplateError((err as Error).message);
  }
}

/**
 * Prints rows as objects come (`kwatch events`) or all at once: the header before the first row, and
 * column widths that never shrink from one write to the next (kubectl's tabwriter with RememberWidths).
 */
export class CustomColumnsPrinter {
  private headerDone = false;
  private readonly widths: number[] = [];

  constructor(private readonly columns: CustomColumn[]) {}

  /** The lines for these objects (the header first, the first time). */
  format(objects: unknown[]): string {
    let text = '';
    if (!this.headerDone) {
      this.headerDone = true;
      text += this.columns.map((c) => c.header).join('\t') + '\n';
    }
    for (const o of objects) text += this.columns.map((c) => cell(c.path(o))).join('\t') + '\n';
    return formatTabbed(text, { rememberedWidths: this.widths });
  }
}

function cell(values: unknown[]): string {
  if (values.length === 0) return '<none>';
  return values.map((v) => kubectlEscapeTerminal(goSprint(v, 'int64'))).join(',');
}
