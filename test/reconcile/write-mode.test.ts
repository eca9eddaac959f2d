// --writes takes exactly the four write modes (src/reconcile/write-mode.ts): each accepted as typed, anything else
// refused in one line naming them, intercept when the flag is not given. Parsed with the command's own flags.
import { Parser } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import Reconcile from '../../src/commands/reconcile.js';

const parse = (argv: string[]) => Parser.parse(['configmaps', ...argv], { flags: Reconcile.flags, args: Reconcile.args, strict: false });

describe('--writes', () => {
  it.each(['intercept', 'overlay', 'server-dry-run', 'apply'])('accepts %s', async (mode) => {
    expect((await parse(['--writes', mode])).flags.writes).toBe(mode);
  });

  it('refuses anything else, naming the four modes in order', async () => {
    await expect(parse(['--writes', 'dry-run'])).rejects.toThrow('Expected --writes=dry-run to be one of: intercept, overlay, server-dry-run, apply');
    await expect(parse(['--writes', ''])).rejects.toThrow('to be one of: intercept, overlay, server-dry-run, apply');
  });

  it('is intercept when not given', async () => {
    expect((await parse([])).flags.writes).toBe('intercept');
  });
});
