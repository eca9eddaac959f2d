// Files the repository commits although a script makes them (oclif.manifest.json, the README's command
// reference): one comparison for every check, so each stale file is reported the same way, in one line.

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
