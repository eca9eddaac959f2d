// The README's `kwatch index` example is what the command prints: the block is run as written (built CLI, --sim with
// its seeded workload) and compared line by line, the index build times left out.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'run.js');
const COMMAND = 'kwatch index pods --by nodeName --by phase -A --sim';
const dir = tempDir('kwatch-e2e-readme-index-');

function readmeBlock(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`$ ${COMMAND}\n`);
  if (at < 0) throw new Error(`README.md has no "$ ${COMMAND}" example`);
  const body = readme.slice(at + COMMAND.length + 3);
  return body.slice(0, body.indexOf('```')).trimEnd().split('\n');
}

const timeless = (lines: string[]) => lines.map((l) => l.replace(/built in [\d.]+ms/, 'built in …ms'));

describe('the README index example', () => {
  it('shows the table the command prints today', async () => {
    const env = { ...process.env, KUBECACHEDIR: join(dir, 'cache'), HOME: dir, KUBECONFIG: join(dir, 'none') };
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [BIN, ...COMMAND.split(' ').slice(1)], { env, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout + stderr))),
    );
    expect(timeless(out.trimEnd().split('\n'))).toEqual(timeless(readmeBlock()));
  });
});
