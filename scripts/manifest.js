#!/usr/bin/env node
// oclif.manifest.json, committed at the top level: oclif reads commands and flags from it without importing
// them, and kwatch's fast help and completion read it too. It is made from the built commands (run
// `npm run build` first):
//   node scripts/manifest.js           rewrite it
//   node scripts/manifest.js --check   exit 1 with one line when the committed file differs from the code
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-file.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST_FILE = join(root, 'oclif.manifest.json');

/** The manifest as `oclif manifest` makes it, from dist/commands, ending with a newline. */
export async function freshManifest() {
  const { Plugin } = await import('@oclif/core');
  // As `oclif manifest` does: ignore the file on disk, cache only defaults that are safe to cache.
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
  await plugin.load();
  // Commands by id: oclif finds them with an asynchronous glob, whose order between two folders (index/, trace/)
  // depends on which read finishes first; a loaded machine once gave trace's before index's.
  const manifest = { ...plugin.manifest, commands: Object.fromEntries(Object.entries(plugin.manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeOrCheck('oclif.manifest.json', MANIFEST_FILE, await freshManifest(), 'npm run build && npm run manifest');
}
