// oclif.manifest.json, the README's table of commands and the command pages of docs/commands are committed although
// scripts make them: the suite fails, in one line that says how to update them, when the code has moved on.
import { readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleMessage } from '../../scripts/generated-file.js';
import { freshManifest, MANIFEST_FILE } from '../../scripts/manifest.js';
import { generatedFiles, pageName, pageReference, withReference, START_MARKER, END_MARKER, UPDATE } from '../../scripts/readme-commands.js';

const root = join(import.meta.dirname, '..', '..');

describe('the stale-file comparison', () => {
  it('says nothing when the committed text is what the generator makes', () => {
    expect(staleMessage('oclif.manifest.json', '{\n}\n', '{\n}\n', 'npm run manifest')).toBeUndefined();
  });

  it('names the file, the first differing line and the command that updates it, in one line', () => {
    const committed = '{\n  "a": 1,\n  "b": 2\n}\n';
    const fresh = '{\n  "a": 1,\n  "b": 3\n}\n';
    const message = staleMessage('oclif.manifest.json', committed, fresh, 'npm run build && npm run manifest');
    expect(message).toBe('oclif.manifest.json is out of date with the code (first difference at line 3): run `npm run build && npm run manifest` and commit the result');
    expect(message).not.toContain('\n');
  });

  it('reports a missing file as missing', () => {
    expect(staleMessage('oclif.manifest.json', undefined, '{}\n', 'npm run manifest')).toBe('oclif.manifest.json is missing: run `npm run manifest` and commit the result');
  });
});

describe('oclif.manifest.json', () => {
  it('is what the built commands make (else: npm run build && npm run manifest)', async () => {
    const fresh = await freshManifest();
    const message = staleMessage('oclif.manifest.json', readFileSync(MANIFEST_FILE, 'utf8'), fresh, 'npm run build && npm run manifest');
    expect(message, message).toBeUndefined();
  });

  it('holds no path of this machine, so a clean clone elsewhere makes the same file', () => {
    const text = readFileSync(MANIFEST_FILE, 'utf8');
    expect(text).not.toContain(root);
    // Defaults computed from the machine (the temporary folder, the home folder) are not cached.
    const manifest = JSON.parse(text) as { commands: Record<string, { flags: Record<string, { default?: unknown }> }> };
    const defaults = Object.values(manifest.commands).flatMap((c) => Object.values(c.flags).map((f) => String(f.default ?? '')));
    expect(defaults.filter((d) => d.startsWith(tmpdir()) || d.startsWith(homedir()))).toEqual([]);
  });
});

describe('the command reference (README.md, docs/commands/)', () => {
  it('is what the built commands make, page by page (else: npm run build && npm run readme)', async () => {
    const files = await generatedFiles();
    const messages = files.map((f) =>
      f.fresh === undefined ? `${f.name} documents a command that no longer exists` : staleMessage(f.name, f.committed, f.fresh, UPDATE),
    );
    expect(messages.filter(Boolean), messages.filter(Boolean).join('\n')).toEqual([]);
  });

  it('covers README.md, the index page and one page per command', async () => {
    const names = (await generatedFiles()).map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/commands/README.md', 'docs/commands/events.md', 'docs/commands/trace-why.md']));
  });

  it('replaces only the text between its markers', () => {
    const readme = `# x\n\nbefore\n${START_MARKER}\nold\n${END_MARKER}\nafter\n`;
    expect(withReference(readme, '### new\n')).toBe(`# x\n\nbefore\n${START_MARKER}\n\n### new\n\n${END_MARKER}\nafter\n`);
  });

  it("gives a page the command's summary and help, and names a page after the command's words", () => {
    expect(pageName('trace convert')).toBe('trace-convert.md');
    const page = pageReference({ id: 'list', summary: 'List a resource.', help: 'USAGE\n  $ kwatch list RESOURCE' });
    expect(page).toContain('List a resource.\n\n```\nUSAGE\n  $ kwatch list RESOURCE\n```');
  });
});
