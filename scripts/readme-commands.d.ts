export const README_FILE: string;
export const START_MARKER: string;
export const END_MARKER: string;
export function commandReference(): Promise<string>;
export function withReference(readme: string, reference: string): string;
