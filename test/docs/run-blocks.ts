// Runs the blocks marked runnable in a Markdown file (test/docs/markdown.ts finds them) as a reader would: the built
// CLI on PATH as `kwatch`, real kubectl, each block in its own folder where examples/ is at hand, and checks that each
// command exits as the text says and prints every line the text shows, by shape.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUBECTL } from '../kubectl-lookup.js';
import { tempDir } from '../temp-dir.js';
import { missingShapes, runnableBlocks, type Command } from './markdown.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The block's commands in order, in one bash (so that `export` and a `kwatch sim … &` started by one line serve the
 * next), each one's stdout and stderr together as a terminal shows them, between markers that carry its exit code.
 * Background jobs still running at the end are stopped.
 */
function runInShell(commands: Command[], cwd: string, path: string): Promise<{ code: number; out: string }[]> {
  const script = commands.map((c, i) => `printf '\\n@@kwatch-docs ${i}@@\\n'\n{ ${c.line}\n} 2>&1\nprintf '\\n@@kwatch-docs-exit ${i} %d@@\\n' $?`);
  script.push('for j in $(jobs -p); do kill $j 2>/dev/null; wait $j 2>/dev/null; done; true');
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: path, HOME: cwd, KUBECONFIG: join(cwd, 'no-kubeconfig'), KUBECACHEDIR: join(cwd, 'kube-cache'), NO_COLOR: '1' };
    const child = spawn('bash', ['-c', script.join('\n')], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'], timeout: 240_000 });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', () =>
      resolve(
        commands.map((_, i) => {
          const m = new RegExp(`\\n@@kwatch-docs ${i}@@\\n([\\s\\S]*?)\\n@@kwatch-docs-exit ${i} (\\d+)@@`).exec(out);
          return m ? { code: Number(m[2]), out: m[1] } : { code: -1, out: `(the block stopped before this command ended)\n${out}` };
        }),
      ),
    );
  });
}

/** One describe per file, one concurrent test per runnable block. */
export function describeRunnableBlocks(file: string): void {
  const base = tempDir('kwatch-docs-');
  const bin = join(base, 'bin');
  mkdirSync(bin);
  symlinkSync(join(ROOT, 'bin', 'run.js'), join(bin, 'kwatch'));
  const path = [bin, ...(isAbsolute(KUBECTL) ? [dirname(KUBECTL)] : []), process.env.PATH ?? ''].join(delimiter);
  let made = 0;

  /** Runs a block in a fresh folder; the first command that differs from the text, or ''. */
  async function runBlock(commands: Command[]): Promise<string> {
    const cwd = join(base, `block-${++made}`);
    mkdirSync(cwd);
    symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
    const results = await runInShell(commands, cwd, path);
    for (const [i, command] of commands.entries()) {
      const { code, out } = results[i];
      if (code !== command.exit) return `$ ${command.line}\nexited ${code}, the text says ${command.exit}:\n${out}`;
      const missing = missingShapes(command.output, out);
      if (missing.length) return `$ ${command.line}\nprinted no line shaped like:\n${missing.join('\n')}\n--- it printed:\n${out}`;
    }
    return '';
  }

  const blocks = runnableBlocks(file, readFileSync(file, 'utf8'));
  describe.concurrent(`runnable blocks of ${relative(ROOT, file)}`, () => {
    it('has some', () => expect(blocks.length).toBeGreaterThan(0));
    for (const block of blocks) {
      // Over 30 s on purpose: a block starts the CLI, often a sim, and kubectl several times (some run `--for 12s`) and
      // tries twice on a loaded machine; bash's own bound is 240 s a try.
      it(`line ${block.line}: ${block.commands[0]?.line.slice(0, 80)}`, { timeout: 500_000 }, async () => {
        expect(block.commands.length).toBeGreaterThan(0);
        // A run can fall differently on a loaded machine (another pod changes first, a watch event comes later):
        // one more try before failing.
        let failure = await runBlock(block.commands);
        if (failure) failure = await runBlock(block.commands);
        expect(failure, failure).toBe('');
      });
    }
  });
}
