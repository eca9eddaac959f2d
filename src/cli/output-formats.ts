// The -o formats of the global --output flag, in a module of their own: completion reads them without
// loading oclif (flags.ts, which defines the flag, imports @oclif/core).
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'ndjson', 'yaml', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
