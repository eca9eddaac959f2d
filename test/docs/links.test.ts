// Every relative link and #anchor in README.md and docs/**/*.md leads to a file and a heading that exist, and the
// README links every page of docs/ (the command pages through docs/commands/README.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLink, localLinks } from './markdown.js';

const root = join(import.meta.dirname, '..', '..');

/** README.md and every Markdown page under docs/. */
function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))];
}

describe('links in README.md and docs/', () => {
  it('every relative link and #anchor leads to a file and a heading that exist', () => {
    const broken = markdownFiles().flatMap((f) => localLinks(f, readFileSync(f, 'utf8')).map((l) => brokenLink(root, l))).filter(Boolean);
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('README.md links to every page of docs/ (command pages through their index)', () => {
    const readme = join(root, 'README.md');
    const linked = new Set(localLinks(readme, readFileSync(readme, 'utf8')).map((l) => join(root, l.target.split('#')[0])));
    const commands = join(root, 'docs', 'commands');
    const index = join(commands, 'README.md');
    const indexLinks = new Set(localLinks(index, readFileSync(index, 'utf8')).map((l) => join(commands, l.target.split('#')[0])));
    const unlinked = markdownFiles().filter((f) => f !== readme && !linked.has(f) && !(f.startsWith(commands) && indexLinks.has(f)));
    expect(unlinked.map((f) => relative(root, f))).toEqual([]);
  });
});
