// Terminal controls only to a terminal (built CLI): when the cursor was hidden on a terminal (ink's dashboard does
// it on stdout), restore-cursor writes "show cursor" to stderr at exit; a redirected stderr must not get it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { keepTerminalControlsToTerminals } from '../../src/cli/terminal-controls.js';
import { BIN, run } from './events-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-e2e-terminal-controls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('terminal controls', () => {
  it('a redirected stderr gets no "show cursor" after the cursor was hidden on a terminal stdout', async () => {
    // What ink does on a terminal, without needing one: stdout claims to be a TTY and the cursor is hidden on it.
    const cliCursor = pathToFileURL(createRequire(join(import.meta.dirname, '..', '..', 'package.json')).resolve('cli-cursor')).href;
    const preload = join(dir, 'hide-cursor.mjs');
    writeFileSync(preload, `import cliCursor from ${JSON.stringify(cliCursor)};\nprocess.stdout.isTTY = true;\ncliCursor.hide(process.stdout);\nprocess.stdout.isTTY = false;\n`);
    const r = await run(process.execPath, ['--import', preload, BIN, 'list', 'pods', '--sim', '--sim-pods', '1', '--sim-nodes', '1'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('\u001b');
  });

  it('drops only writes made of control sequences, and only when the stream is not a terminal', () => {
    const capture = (isTTY: boolean) => {
      const out = Object.assign(new PassThrough(), { isTTY });
      let text = '';
      out.setEncoding('utf8').on('data', (d: string) => (text += d));
      keepTerminalControlsToTerminals(out);
      out.write('\u001b[?25h');
      out.write('\u001b[2K\u001b[1A');
      out.write('Warning: kept \u001b[?25h as it came with text\n');
      out.write(Buffer.from('\u001b[?25l'));
      return () => text;
    };
    const file = capture(false);
    const tty = capture(true);
    return new Promise<void>((done) => setImmediate(() => {
      expect(file()).toBe('Warning: kept \u001b[?25h as it came with text\n');
      expect(tty()).toBe('\u001b[?25h\u001b[2K\u001b[1AWarning: kept \u001b[?25h as it came with text\n\u001b[?25l');
      done();
    }));
  });
});
