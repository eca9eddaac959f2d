// `reconcile --exec` refuses the flags of the module runner, in process: one message per flag, both spellings
// (`--flag value`, `--flag=value`). That the refusal reaches the user as one line, exit 1, through the built CLI,
// test/e2e/exec.test.ts checks for one of them.
import { describe, expect, it } from 'vitest';
import { refuseModuleOnlyFlags } from '../../src/cli/exec-flags.js';
import { UserError } from '../../src/cli/user-error.js';

const message = (flag: string) => `--${flag} acts on the reconcile loop of a --with module; a controller process runs its own (leave it out with --exec)`;

describe('refuseModuleOnlyFlags', () => {
  it.each([
    [['--concurrency', '2'], 'concurrency'],
    [['--max-reconciles', '5'], 'max-reconciles'],
    [['--settle-timeout=5s'], 'settle-timeout'],
    [['--debounce', '1s'], 'debounce'],
    [['--key', 'default/a'], 'key'],
    [['--diff'], 'diff'],
  ])('%j is refused, naming the flag', (args, flag) => {
    const own = ['reconcile', '--exec', '-n', 'default', ...args];
    expect(() => refuseModuleOnlyFlags(own)).toThrow(UserError);
    expect(() => refuseModuleOnlyFlags(own)).toThrow(message(flag));
  });

  it('lets kwatch\'s own flags through, and a flag that only begins like one of the module runner\'s', () => {
    expect(() => refuseModuleOnlyFlags(['reconcile', '--exec', '--writes', 'overlay', '--once', '--quiet', '1s', '--max-wait=2m', '--keys-only'])).not.toThrow();
  });
});
