#!/usr/bin/env node
// Nothing the README said may be lost when it moves into docs/: every non-blank line of an older README (a git
// revision, main by default) is looked for in README.md and docs/**/*.md now, compared without heading marks and
// surrounding spaces. Prints the lines found nowhere (with their line number in the old README) and exits 1 when
// there are any; a line that was changed on purpose is to be justified by whoever moved it.
//   node scripts/docs-lost-lines.js [REVISION]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const revision = process.argv[2] ?? 'main';
const norm = (line) => line.replace(/^#{1,6}\s+/, '').trim();
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
const now = new Set([join(root, 'README.md'), ...walk(join(root, 'docs'))].flatMap((f) => readFileSync(f, 'utf8').split('\n').map(norm)));
const old = execFileSync('git', ['show', `${revision}:README.md`], { cwd: root, encoding: 'utf8' }).split('\n');
const lost = old.map((line, i) => ({ n: i + 1, line })).filter(({ line }) => norm(line) && !now.has(norm(line)));
for (const { n, line } of lost) process.stdout.write(`${n}: ${line}\n`);
process.stderr.write(`${lost.length} of ${old.filter((l) => l.trim()).length} non-blank lines of ${revision}:README.md are in neither README.md nor docs/\n`);
process.exitCode = lost.length ? 1 : 0;
