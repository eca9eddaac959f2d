// The parts of oclif.manifest.json that kwatch reads without loading oclif: `<command> --help` (fast-help.ts) and
// shell completion (completion/). oclif writes every field below; those marked optional may be absent per command.

export interface ManifestFlag {
  name: string;
  char?: string;
  type: 'boolean' | 'option';
  description?: string;
  summary?: string;
  helpGroup?: string;
  helpLabel?: string;
  helpValue?: string | string[];
  hidden?: boolean;
  required?: boolean;
  multiple?: boolean;
  allowNo?: boolean;
  aliases?: string[];
  default?: unknown;
  env?: string;
  options?: string[];
  noCacheDefault?: boolean;
  dependsOn?: string[];
  exclusive?: string[];
  combinable?: string[];
}

export interface ManifestArg {
  name: string;
  description?: string;
  required?: boolean;
  multiple?: boolean;
  hidden?: boolean;
  default?: unknown;
  options?: string[];
}

export interface ManifestCommand {
  id: string;
  summary?: string;
  description?: string;
  hidden?: boolean;
  usage?: string | string[];
  examples?: (string | { description: string; command: string })[];
  aliases?: string[];
  /** By flag name; oclif writes {} for a command without any. */
  flags: Record<string, ManifestFlag>;
  /** By argument name, in order; oclif writes {} for a command without any. */
  args: Record<string, ManifestArg>;
  strict?: boolean;
  state?: string;
  deprecationOptions?: unknown;
  hasDynamicHelp?: boolean;
}

export interface Manifest {
  version: string;
  /** By command id ("events", "sim:…" for topics). */
  commands: Record<string, ManifestCommand>;
}
