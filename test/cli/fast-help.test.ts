// The fast help path renders exactly what oclif renders, for every command, both entry points and several widths.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { Config, Help } from '@oclif/core';
import { describe, expect, it, vi } from 'vitest';
import { renderCommandHelp, wrapText } from '../../src/cli/fast-help.js';
import type { Manifest } from '../../src/cli/oclif-manifest.js';
import { helpRequest } from '../../src/cli/main.js';

const root = join(import.meta.dirname, '..', '..');

async function oclifHelp(id: string, bin: string, width: number): Promise<string> {
  const config = await Config.load({ root });
  config.bin = bin;
  const help = new Help(config, { maxWidth: width, stripAnsi: true });
  let out = '';
  // oclif's ux.stdout prints through console.log
  const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    out += `${format(...args)}\n`;
  });
  try {
    await help.showHelp([id]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

describe('fast help', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as Manifest;

  it('renders every command in the manifest exactly as oclif does, for kwatch and kubectl kwatch, at 50, 80 and 132 columns', async () => {
    expect(Object.keys(manifest.commands).length).toBeGreaterThan(2);
    for (const id of Object.keys(manifest.commands)) {
      for (const bin of ['kwatch', 'kubectl kwatch']) {
        for (const width of [50, 80, 132]) {
          const ours = renderCommandHelp(manifest.commands[id], { bin, width });
          expect(ours, `${id} ${bin} ${width}`).toBe(await oclifHelp(id, bin, width));
        }
      }
    }
  });

  it('wraps like wrap-ansi with hard breaks: words move down, over-long words are cut, trailing spaces go', () => {
    expect(wrapText('aaa bbb ccc', 7)).toBe('aaa bbb\nccc');
    expect(wrapText('abcdefghij', 4)).toBe('abcd\nefgh\nij');
    expect(wrapText('a  \nb', 10)).toBe('a\nb');
  });

  it('recognises X --help, X -h and help X, and leaves root help and flags after -- to oclif', () => {
    expect(helpRequest(['events', '--help'])?.words).toEqual(['events']);
    expect(helpRequest(['events', 'pods', '-h'])).toEqual({ words: ['events', 'pods'], oclifArgv: ['events', 'pods', '--help'] });
    expect(helpRequest(['help', 'list'])).toEqual({ words: ['list'], oclifArgv: ['list', '--help'] });
    expect(helpRequest(['--help'])).toBeUndefined();
    expect(helpRequest(['events', 'pods', '--', '-h'])).toBeUndefined();
    expect(helpRequest(['events', 'pods'])).toBeUndefined();
  });
});
