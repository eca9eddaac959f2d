// The house's rooms and who may enter which (DEVELOPERS.md): the sim is a server that shares no client code (its own
// rooms and the neutral src/wire only), src/wire imports nothing outside itself, and src/kube never reaches into the
// CLI. Read from the sources' import specifiers, static and dynamic, so a new file cannot cross a wall unnoticed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Every .ts/.tsx file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The relative module specifiers a file imports: `from '…'`, `import '…'`, `import('…')`, `export … from '…'`. */
export function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) out.push(m[1]!);
  return out;
}

/** The top-level room (src/<room>/…) each relative import of `file` lands in. */
function roomsImported(file: string): { spec: string; room: string }[] {
  return relativeImports(readFileSync(file, 'utf8')).map((spec) => {
    const target = relative(SRC, resolve(dirname(file), spec));
    return { spec, room: target.startsWith('..') ? '(outside src)' : target.split(sep)[0]! };
  });
}

/** "file → spec" for every import of a room's files that lands outside `allowed`. */
function crossings(room: string, allowed: (target: string) => boolean): string[] {
  return sources(join(SRC, room)).flatMap((f) => roomsImported(f).filter((i) => !allowed(i.room)).map((i) => `${relative(SRC, f)} → ${i.spec}`));
}

describe('the rooms of src/ and their walls', () => {
  it('reads static, dynamic and re-export specifiers', () => {
    const text = "import a from './a.js';\nimport type { B } from '../b/b.js';\nexport { c } from './c.js';\nconst d = await import('../../d.js');\nimport './side.js';\nimport x from 'undici';";
    expect(relativeImports(text)).toEqual(['./a.js', '../b/b.js', './c.js', '../../d.js', './side.js']);
  });

  it('the sim imports only the sim and the neutral src/wire (a server that shares no client code)', () => {
    expect(crossings('sim', (r) => r === 'sim' || r === 'wire')).toEqual([]);
  });

  it('src/wire, the neutral room, imports nothing outside itself', () => {
    expect(crossings('wire', (r) => r === 'wire')).toEqual([]);
  });

  it('src/kube does not import the CLI or its commands', () => {
    expect(crossings('kube', (r) => r !== 'cli' && r !== 'commands')).toEqual([]);
  });
});
