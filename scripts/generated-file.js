// Files the repository commits although a script makes them (oclif.manifest.json, the README's command
// reference, the compiled scanner): one comparison for every check, so each stale file is reported the same way,
// in one line, and one command line for every generator.

import { readFileSync, writeFileSync } from 'node:fs';

/**
 * undefined when the committed text is what the generator makes now; otherwise the one line to print.
 * @param {string} name the file as the user knows it
 * @param {string | undefined} committed its text in the work tree (undefined: missing)
 * @param {string} fresh what the generator makes from the code now
 * @param {string} update the command that rewrites it
 */
export function staleMessage(name, committed, fresh, update) {
  if (committed === fresh) return undefined;
  if (committed === undefined) return `${name} is missing: run \`${update}\` and commit the result`;
  const a = committed.split('\n');
  const b = fresh.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  return `${name} is out of date with the code (first difference at line ${line + 1}): run \`${update}\` and commit the result`;
}

/** The committed text of `file`; undefined when it is missing. */
export function readOrUndefined(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * A generator's command line: rewrite `file` with `fresh` (only when it differs), or, given --check, exit 1 with
 * the one line staleMessage prints when the committed file differs.
 * @param {string} name @param {string} file @param {string} fresh @param {string} update
 */
export function writeOrCheck(name, file, fresh, update) {
  const committed = readOrUndefined(file);
  if (!process.argv.includes('--check')) {
    if (committed !== fresh) writeFileSync(file, fresh);
    return;
  }
  const message = staleMessage(name, committed, fresh, update);
  if (message) {
    process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  }
}
