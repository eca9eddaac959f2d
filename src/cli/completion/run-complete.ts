// `kwatch __complete ARGS… TO_COMPLETE` (and `__completeNoDesc`): cobra's hidden completion command, as
// kubectl has it. It prints one candidate a line (`value<TAB>description`), then `:DIRECTIVE`. It runs
// before oclif is loaded and reads oclif.manifest.json, so a TAB costs a bare Node start-up unless the
// cluster must be asked.
import { readFileSync } from 'node:fs';
import type { Manifest } from '../oclif-manifest.js';
import { complete, type CandidateSources } from './complete.js';
import { Directive } from './directive.js';

/** `opts.manifest`: the manifest's file, or the manifest itself (the single executable carries it in its bundle). */
export async function runComplete(args: string[], opts: { manifest: string | object; descriptions: boolean; sources?: CandidateSources }): Promise<string> {
  let manifest: Manifest;
  try {
    manifest = (typeof opts.manifest === 'string' ? JSON.parse(readFileSync(opts.manifest, 'utf8')) : opts.manifest) as Manifest;
  } catch {
    return `:${Directive.Error}\n`;
  }
  const sources = opts.sources ?? (await import('./cluster-sources.js')).clusterSources();
  // A shell passes at least the word being completed; none at all means the empty word.
  const { candidates, directive } = await complete(manifest, args.length ? args : [''], sources);
  const lines = candidates.map((c) => (opts.descriptions && c.description ? `${c.value}\t${c.description}` : c.value));
  return `${lines.map((l) => `${l}\n`).join('')}:${directive}\n`;
}
