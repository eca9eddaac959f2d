// `-o jsonpath=…`, `-o custom-columns-file=FILE`, …: recognises kubectl's template outputs in the -o
// value, reads the -file forms, and compiles the template (a bad one is a one-line UserError).
import { readFileSync } from 'node:fs';
import type { ObjectTemplate } from '../render/object-template.js';
import { TEMPLATE_FORMATS, type TemplateFormat } from '../render/template-formats.js';
import { UserError } from './user-error.js';

/** kubectl's other spellings of the go-template outputs. */
const ALIASES: Record<string, TemplateFormat> = { template: 'go-template', templatefile: 'go-template-file' };

/** The template outputs, as an -o value's help names them. */
export const TEMPLATE_OUTPUT_HELP = 'jsonpath=…, jsonpath-file=FILE, custom-columns=…, custom-columns-file=FILE, go-template=…, go-template-file=FILE';

/** Whether an -o value names a template output (`jsonpath=…`, `go-template-file=…`). */
export function isTemplateOutput(output: string | undefined): boolean {
  return output !== undefined && templateFormat(output) !== undefined;
}

/** The compiled template for an -o value, or undefined when it names no template output (the engines load only then). */
export async function templateFromOutput(output: string | undefined): Promise<ObjectTemplate | undefined> {
  if (output === undefined) return undefined;
  const format = templateFormat(output);
  if (format === undefined) return undefined;
  const eq = output.indexOf('=');
  let text = eq < 0 ? '' : output.slice(eq + 1);
  if (format.endsWith('-file')) {
    if (text === '') throw new UserError(`-o ${format} needs a file: -o ${format}=FILE`);
    try {
      text = readFileSync(text, 'utf8');
    } catch (err) {
      throw new UserError(`cannot read the ${format} ${text}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  } else if (text === '' && format !== 'custom-columns') {
    throw new UserError(`template format specified but no template given: -o ${format}=TEMPLATE`);
  }
  let template: ObjectTemplate;
  const kind = format.replace(/-file$/, '');
  const { compileObjectTemplate } = await import('../render/object-template.js');
  try {
    template = compileObjectTemplate(format, text);
  } catch (err) {
    throw new UserError(`error parsing ${kind} ${JSON.stringify(text)}: ${(err as Error).message}`);
  }
  // A template that fails on an object (a field of a string, a bad index) is the user's to fix: one line.
  const guard =
    <T>(f: (v: T) => string) =>
    (v: T): string => {
      try {
        return f(v);
      } catch (err) {
        throw new UserError(`error executing ${kind} ${JSON.stringify(text)}: ${(err as Error).message}`);
      }
    };
  return { document: guard(template.document), objects: guard(template.objects) };
}

function templateFormat(output: string): TemplateFormat | undefined {
  const name = output.split('=')[0];
  if ((TEMPLATE_FORMATS as readonly string[]).includes(name)) return name as TemplateFormat;
  return ALIASES[name];
}
