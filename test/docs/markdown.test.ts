// The rules the docs test reads Markdown by: what a runnable block is, what "the same shape" means, GitHub's anchors,
// and which links are broken. Each can fail: a changed flag, a missing line or a renamed heading is caught.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';
import { anchors, brokenLink, localLinks, missingShapes, runnableBlocks, skeleton, slug } from './markdown.js';

describe('runnable blocks', () => {
  const text = [
    '<!-- runnable: exit=0 -->',
    '```console',
    '$ kwatch list pods --sim',
    'PAGE ITEMS',
    '$ kwatch events nope   # exit 1',
    'error: the server doesn\'t have a resource type "nope"',
    '```',
    '```console',
    '$ kwatch not-marked',
    '```',
  ].join('\n');

  it('takes only marked blocks, each command with the output after it and the exit it is said to have', () => {
    expect(runnableBlocks('x.md', text)).toEqual([
      {
        file: 'x.md',
        line: 2,
        commands: [
          { line: 'kwatch list pods --sim', exit: 0, output: ['PAGE ITEMS'] },
          { line: 'kwatch events nope   # exit 1', exit: 1, output: ['error: the server doesn\'t have a resource type "nope"'] },
        ],
      },
    ]);
  });

  it('refuses a marker without a console block after it', () => {
    expect(() => runnableBlocks('x.md', '<!-- runnable -->\n```sh\n$ ls\n```')).toThrow(/x.md:1: a runnable marker/);
  });
});

describe('the shape of a line', () => {
  it('leaves out times, resourceVersions, sizes, ids, ports, column widths and temporary paths', () => {
    const a = '16:18:44.581  reflector  list-page   69    name=pods bytes=6.6kB ms=136 id=4 http://127.0.0.1:35183 /tmp/kwdoc-x1/sim.kubeconfig';
    const b = '09:02:01.002  reflector  list-page   1234  name=pods bytes=194kB ms=7 id=12 http://127.0.0.1:4 /tmp/a/b/c/sim.kubeconfig';
    expect(skeleton(a)).toBe(skeleton(b));
    expect(skeleton('│    1 │ 30 │')).toBe(skeleton('│   12 │  3 │'));
  });

  it('keeps words, flags and operations', () => {
    expect(skeleton('16:18:44.581  reflector  list-page')).not.toBe(skeleton('16:18:44.581  reflector  listed'));
    expect(skeleton('--page-size=<value>')).not.toBe(skeleton('--page-sz=<value>'));
  });

  it('finds the shown lines the output lacks, in any order, skipping … lines', () => {
    const out = 'b 2\na 1\n';
    expect(missingShapes(['a 7', '…', 'b 9'], out)).toEqual([]);
    expect(missingShapes(['a 7', 'c 1'], out)).toEqual(['c 1']);
  });
});

describe('anchors and links', () => {
  it("makes GitHub's anchors, numbering repeats", () => {
    expect(slug('`kwatch reconcile --exec -- CMD` and `kwatch proxy` — any controller process, on the wire'.replace(/`/g, ''))).toBe(
      'kwatch-reconcile---exec----cmd-and-kwatch-proxy--any-controller-process-on-the-wire',
    );
    expect([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
  });

  it('reports a missing file and a missing anchor, not a present one, and skips web links and code', () => {
    const root = tempDir('kwatch-docs-links-');
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'sim.md'), '# The sim\n## Faults\n');
    const file = join(root, 'README.md');
    const text = '[a](docs/sim.md#faults) [b](docs/sim.md#nope) [c](docs/gone.md) [d](https://x.dev/y) `[e](f.md)`\n';
    writeFileSync(file, text);
    const links = localLinks(file, text);
    expect(links.map((l) => l.target)).toEqual(['docs/sim.md#faults', 'docs/sim.md#nope', 'docs/gone.md']);
    expect(links.map((l) => brokenLink(root, l))).toEqual(['', 'README.md:1: docs/sim.md#nope: docs/sim.md has no heading #nope', 'README.md:1: docs/gone.md: no such file']);
  });
});
