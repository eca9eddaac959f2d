// Where a controller module's error happened, read from err.stack: the FILE:LINE header of a SyntaxError,
// the first stack frame in the user's own code (not Node's, not node_modules, not kwatch's), frames of a
// transpiled bundle mapped back to the TypeScript source, and the FILE:LINE a reconcile's error is shown with.
import { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { syntaxErrorLocation, thrownAt, unbundled, userErrorSite, type TranspiledFile } from '../../src/reconcile/error-location.js';

const OWN = resolve(import.meta.dirname, '..', '..', 'src');

/**
 * A bundle at /proj/.kwatch/ctrl.mjs whose map says: line 1 maps to no source (nothing before the first
 * mapping); line 2 (from column 0) is ctrl.ts line 11, column 3.
 */
function bundle(source = '../ctrl.ts'): TranspiledFile {
  // Segments are base64 VLQ deltas: A=0, U=10, E=2.
  const map = { version: 3, file: 'ctrl.mjs', sources: [source], sourcesContent: [], sourceRoot: '', names: [], mappings: ';AAUE' };
  return { path: '/proj/.kwatch/ctrl.mjs', sourceMap: new SourceMap(map) };
}

describe('syntaxErrorLocation', () => {
  it('reads the FILE:LINE header and the caret column of a SyntaxError, for a path, a file URL or a Windows path', () => {
    expect(syntaxErrorLocation('/home/u/ctrl.js:7\n  const x = ;\n            ^\n\nSyntaxError: Unexpected token')).toEqual({ file: '/home/u/ctrl.js', line: 7, column: 13 });
    expect(syntaxErrorLocation('file:///home/u/my%20ctrl.mjs:2\r\nexport x\r\n       ^\r\nSyntaxError: x')).toEqual({ file: '/home/u/my ctrl.mjs', line: 2, column: 8 });
    expect(syntaxErrorLocation('C:\\u\\ctrl.js:12\nfoo(\n^\nSyntaxError: x')).toEqual({ file: 'C:\\u\\ctrl.js', line: 12, column: 1 });
  });

  it('finds nothing in a stack that does not start with the header', () => {
    expect(syntaxErrorLocation(undefined)).toBeUndefined();
    expect(syntaxErrorLocation('')).toBeUndefined();
    expect(syntaxErrorLocation('SyntaxError: Unexpected token\n    at /home/u/ctrl.js:7:3')).toBeUndefined();
    expect(syntaxErrorLocation('x /home/u/ctrl.js:7\nconst\n^')).toBeUndefined();
    // No caret line: not the header's shape.
    expect(syntaxErrorLocation('/home/u/ctrl.js:7\nconst x = ;\nSyntaxError: x')).toBeUndefined();
  });

  it('maps a header in the transpiled bundle back to the TypeScript source, and only that bundle\'s', () => {
    expect(syntaxErrorLocation('/proj/.kwatch/ctrl.mjs:2\n  bad(\n  ^\nSyntaxError: x', bundle())).toEqual({ file: '/proj/ctrl.ts', line: 11, column: 3 });
    expect(syntaxErrorLocation('/proj/other.mjs:2\n  bad(\n  ^\nSyntaxError: x', bundle())).toEqual({ file: '/proj/other.mjs', line: 2, column: 3 });
  });
});

describe('thrownAt', () => {
  const frames = (...lines: string[]) => ['Error: boom', ...lines].join('\n');

  it('returns the first frame in the user\'s code, past Node\'s internals and kwatch\'s own files', () => {
    const stack = frames(
      '    at check (node:internal/modules/esm/loader:10:5)',
      `    at run (${OWN}/reconcile/runner.ts:100:7)`,
      '    at reconcile (/home/u/ctrl.js:14:11)',
      '    at /home/u/other.js:1:1',
    );
    expect(thrownAt(stack, { skipUnder: OWN })).toEqual({ file: '/home/u/ctrl.js', line: 14, column: 11 });
    // A frame without a function name, and a file URL with spaces.
    expect(thrownAt(frames('    at /home/u/ctrl.js:3:4'), { skipUnder: OWN })).toEqual({ file: '/home/u/ctrl.js', line: 3, column: 4 });
    expect(thrownAt(frames('    at f (file:///home/u/my%20ctrl.mjs:5:6)'), { skipUnder: OWN })).toEqual({ file: '/home/u/my ctrl.mjs', line: 5, column: 6 });
    expect(thrownAt(frames('    at f (C:\\u\\ctrl.js:5:6)'), { skipUnder: OWN })).toEqual({ file: 'C:\\u\\ctrl.js', line: 5, column: 6 });
  });

  it('takes a node_modules frame only when no frame is the user\'s own, and the first such frame', () => {
    const deps = ['    at a (/home/u/node_modules/lib/a.js:1:2)', '    at b (/home/u/node_modules/lib/b.js:3:4)'];
    expect(thrownAt(frames(...deps), { skipUnder: OWN })).toEqual({ file: '/home/u/node_modules/lib/a.js', line: 1, column: 2 });
    expect(thrownAt(frames(...deps, '    at c (/home/u/ctrl.js:9:1)'), { skipUnder: OWN })).toEqual({ file: '/home/u/ctrl.js', line: 9, column: 1 });
    expect(thrownAt(frames('    at a (C:\\u\\node_modules\\lib\\a.js:1:2)', '    at c (C:\\u\\ctrl.js:9:1)'), { skipUnder: OWN })).toMatchObject({ file: 'C:\\u\\ctrl.js' });
    // A file merely named like the folder is the user's.
    expect(thrownAt(frames('    at a (/home/u/node_modules.js:1:2)'), { skipUnder: OWN })).toMatchObject({ file: '/home/u/node_modules.js' });
  });

  it('finds nothing when every frame is Node\'s or kwatch\'s, or in a stack with no frames', () => {
    expect(thrownAt(undefined, { skipUnder: OWN })).toBeUndefined();
    expect(thrownAt('Error: boom', { skipUnder: OWN })).toBeUndefined();
    expect(thrownAt(frames('    at x (node:internal/process/task_queues:95:5)', `    at y (${OWN}/reconcile/session.ts:1:1)`), { skipUnder: OWN })).toBeUndefined();
    // A frame with text after it is not a frame.
    expect(thrownAt(frames('    at y (/home/u/ctrl.js:1:1) extra'), { skipUnder: OWN })).toBeUndefined();
  });

  it('maps frames of the transpiled bundle back to the source, skipping a frame the map does not cover', () => {
    const t = bundle();
    expect(thrownAt(frames('    at r (/proj/.kwatch/ctrl.mjs:2:1)'), { skipUnder: OWN, transpiled: t })).toEqual({ file: '/proj/ctrl.ts', line: 11, column: 3 });
    expect(thrownAt(frames('    at r (/proj/.kwatch/ctrl.mjs:1:1)', '    at s (/proj/ctrl.ts:4:2)'), { skipUnder: OWN, transpiled: t })).toEqual({ file: '/proj/ctrl.ts', line: 4, column: 2 });
    // Without the bundle, its frame is the user's code as it stands.
    expect(thrownAt(frames('    at r (/proj/.kwatch/ctrl.mjs:2:1)'), { skipUnder: OWN })).toEqual({ file: '/proj/.kwatch/ctrl.mjs', line: 2, column: 1 });
    // A map naming its source by file URL.
    expect(thrownAt(frames('    at r (/proj/.kwatch/ctrl.mjs:2:1)'), { skipUnder: OWN, transpiled: bundle('file:///src/ctrl.ts') })).toEqual({ file: '/src/ctrl.ts', line: 11, column: 3 });
  });
});

describe('unbundled', () => {
  it('names the source in place of the bundle, by path and by URL, everywhere in the text', () => {
    const t = bundle();
    const url = pathToFileURL(t.path).href;
    expect(unbundled(`cannot import ${url} (from ${t.path}); see ${t.path}`, t, '/proj/ctrl.ts')).toBe(`cannot import ${pathToFileURL('/proj/ctrl.ts').href} (from /proj/ctrl.ts); see /proj/ctrl.ts`);
    expect(unbundled(`cannot import ${t.path}`, undefined, '/proj/ctrl.ts')).toBe(`cannot import ${t.path}`);
  });
});

describe('userErrorSite', () => {
  const withStack = (stack: string) => Object.assign(new Error('boom'), { stack });

  it('is FILE:LINE of the user\'s frame, relative to the working directory when under it', () => {
    const inside = join(process.cwd(), 'controllers', 'ctrl.js');
    expect(userErrorSite(withStack(`Error: boom\n    at r (${inside}:14:3)`))).toBe(join('controllers', 'ctrl.js') + ':14');
    // A name that merely starts with two dots is still under the working directory.
    expect(userErrorSite(withStack(`Error: boom\n    at r (${join(process.cwd(), '..ctrl.js')}:2:3)`))).toBe('..ctrl.js:2');
    expect(userErrorSite(withStack('Error: boom\n    at r (/elsewhere/ctrl.js:14:3)'))).toBe('/elsewhere/ctrl.js:14');
    const parent = resolve(process.cwd(), '..', 'sibling', 'ctrl.js');
    expect(userErrorSite(withStack(`Error: boom\n    at r (${parent}:5:1)`))).toBe(`${parent}:5`);
  });

  it('is undefined for a thrown non-Error or a stack with no user frame', () => {
    expect(userErrorSite('boom')).toBeUndefined();
    expect(userErrorSite({ stack: 'Error: boom\n    at r (/elsewhere/ctrl.js:14:3)' })).toBeUndefined();
    expect(userErrorSite(withStack(`Error: boom\n    at r (${OWN}/reconcile/runner.ts:1:1)`))).toBeUndefined();
  });
});
