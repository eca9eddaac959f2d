// The template outputs kubectl users type (-o jsonpath=…, custom-columns=…, go-template=…), for the
// commands that print objects: a whole document at once (`list`, `index`), or object by object as they
// arrive (`events`, as `kubectl get -w` prints them).
import { CustomColumnsPrinter, parseCustomColumnsSpec, parseCustomColumnsTemplate } from './custom-columns.js';
import { compileGoTemplate } from './go-template.js';
import { compileJsonPathTemplate } from './jsonpath-template.js';

import type { TemplateFormat } from './template-formats.js';

export { TEMPLATE_FORMATS, type TemplateFormat } from './template-formats.js';

export interface ObjectTemplate {
  /**
   * The text for one document as kubectl prints it: jsonpath and go-template see the document itself
   * (a List wrapper for several objects); custom-columns print a row per item of a List.
   */
  document(doc: unknown): string;
  /**
   * The text for more objects of a stream, each printed on its own (custom-columns: their rows, aligned
   * together; the header comes with the first; widths never shrink), as kubectl get --watch prints them.
   */
  objects(objs: unknown[]): string;
}

/** Compiles a template; `text` is the template itself (for the -file forms, the file's content). Throws TemplateError. */
export function compileObjectTemplate(format: TemplateFormat, text: string): ObjectTemplate {
  switch (format) {
    case 'jsonpath':
    case 'jsonpath-file': {
      const t = compileJsonPathTemplate(text);
      return { document: t, objects: (objs) => objs.map(t).join('') };
    }
    case 'go-template':
    case 'go-template-file': {
      const t = compileGoTemplate(text);
      return { document: t, objects: (objs) => objs.map(t).join('') };
    }
    case 'custom-columns':
    case 'custom-columns-file': {
      const columns = format === 'custom-columns' ? parseCustomColumnsSpec(text) : parseCustomColumnsTemplate(text);
      const stream = new CustomColumnsPrinter(columns);
      return {
        document: (doc) => new CustomColumnsPrinter(columns).format(isList(doc) ? doc.items : [doc]),
        objects: (objs) => stream.format(objs),
      };
    }
  }
}

function isList(doc: unknown): doc is { items: unknown[] } {
  return typeof doc === 'object' && doc !== null && Array.isArray((doc as { items?: unknown }).items) && typeof (doc as { kind?: unknown }).kind === 'string' && (doc as { kind: string }).kind.endsWith('List');
}
