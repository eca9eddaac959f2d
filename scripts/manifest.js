#!/usr/bin/env node
// oclif.manifest.json, committed at the top level: oclif reads commands and flags from it without importing
// them, and kwatch's fast help and completion read it too. It is made from the built commands (run
// `npm run build` first):
//   node scripts/manifest.js           rewrite it
//   node scripts/manifest.js --check   exit 1 with one line when the committed file differs from the code
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleMessage } from './generated-file.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST_FILE = join(root, 'oclif.manifest.json');

/** The manifest as `oclif manifest` makes it, from dist/commands, ending with a newline. */
export async function freshManifest() {
  const { Plugin } = await import('@oclif/core');
  // As `oclif manifest` does: ignore the file on disk, cache only defaults that are safe to cache.
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
  await plugin.load();
  return `${JSON.stringify(plugin.manifest, null, 2)}\n`;
}

function readOrUndefined(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fresh = await freshManifest();
  if (process.argv.includes('--check')) {
    const message = staleMessage('oclif.manifest.json', readOrUndefined(MANIFEST_FILE), fresh, 'npm run build && npm run manifest');
    if (message) {
      process.stderr.write(`error: ${message}\n`);
      process.exitCode = 1;
    }
  } else {
    writeFileSync(MANIFEST_FILE, fresh);
  }
}
