// The template output formats kubectl users type after -o (each takes `=TEMPLATE` or `=FILE`), in a leaf module:
// the flag's help and completion name them without loading the template engines.
export const TEMPLATE_FORMATS = ['jsonpath', 'jsonpath-file', 'custom-columns', 'custom-columns-file', 'go-template', 'go-template-file'] as const;
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];
