export const MANIFEST_FILE: string;
export function freshManifest(): Promise<string>;
