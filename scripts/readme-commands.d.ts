export const README_FILE: string;
export const COMMANDS_DIR: string;
export const COMMANDS_INDEX: string;
export const START_MARKER: string;
export const END_MARKER: string;
export const UPDATE: string;
export interface CommandHelp {
  id: string;
  summary: string;
  help: string;
}
export function pageName(id: string): string;
export function commandHelp(): Promise<{ shared: string; commands: CommandHelp[] }>;
export function commandTable(commands: CommandHelp[], linkDir: string): string;
export function indexReference(help: { shared: string; commands: CommandHelp[] }): string;
export function pageReference(command: CommandHelp): string;
export function withReference(text: string, reference: string, name?: string): string;
export function generatedFiles(): Promise<{ name: string; file: string; committed: string | undefined; fresh: string | undefined }[]>;
