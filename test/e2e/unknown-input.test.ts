// End to end through the built CLI (run `npm run build` first): help in every spelling, and unknown commands,
// unknown flags and bad flag values answered as kubectl answers them — a line, cobra's suggestion, exit 1.
import { describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { suggestionsFor } from '../../src/cli/suggest.js';

const noKube = { KUBECONFIG: '/nonexistent/kubeconfig' };

describe('help and unknown input', () => {
  it('kwatch -h, kwatch help and kwatch --help print the root help; kwatch help events the command\'s', async () => {
    const [dashH, help, long, events] = await Promise.all([['-h'], ['help'], ['--help'], ['help', 'events']].map((a) => kwatch(a, noKube)));
    for (const res of [dashH, help, long]) {
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^COMMANDS$/m);
      expect(res.stdout).toBe(long.stdout);
    }
    expect(events.code).toBe(0);
    expect(events.stdout).toMatch(/^USAGE\n\s+\$ kwatch events/m);
  });

  it('an unknown command: kubectl\'s line and "Did you mean this?", exit 1', async () => {
    const [typo, nonsense] = await Promise.all([kwatch(['evnts', 'pods'], noKube), kwatch(['xyzzy'], noKube)]);
    expect(typo).toEqual({ code: 1, stdout: '', stderr: 'error: unknown command "evnts" for "kwatch"\n\nDid you mean this?\n\tevents\n\n' });
    expect(nonsense).toEqual({ code: 1, stdout: '', stderr: 'error: unknown command "xyzzy" for "kwatch"\n' });
  });

  it('an unknown flag: kubectl\'s line, the close flag, the help hint, exit 1', async () => {
    const [typo, root] = await Promise.all([kwatch(['events', 'pods', '--namespce', 'x'], noKube), kwatch(['--foo'], noKube)]);
    expect(typo).toEqual({ code: 1, stdout: '', stderr: "error: unknown flag: --namespce\n\nDid you mean this?\n\t--namespace\n\nSee 'kwatch events --help' for usage.\n" });
    expect(root).toEqual({ code: 1, stdout: '', stderr: "error: unknown flag: --foo\nSee 'kwatch --help' for usage.\n" });
  });

  it('a bad flag value, exclusive flags and a missing argument are one line each, exit 1', async () => {
    const runs = await Promise.all([['events', 'pods', '-v', 'abc'], ['index', '--by', 'x', '--value', 'y', '--watch'], ['list']].map((a) => kwatch(a, noKube)));
    expect(runs.map((r) => r.stderr)).toEqual([
      'error: invalid argument "abc" for "--v" flag: expected an integer from 0 to 10\n',
      'error: --value=y cannot also be provided when using --watch\n',
      "error: missing the RESOURCE argument (see 'kwatch list --help')\n",
    ]);
    for (const r of runs) expect(r.code).toBe(1);
  });

  it('suggests within two edits or by prefix, closest first', () => {
    expect(suggestionsFor('evnts', ['events', 'list', 'index', 'replay'])).toEqual(['events']);
    expect(suggestionsFor('rec', ['reconcile', 'replay', 'list'])).toEqual(['reconcile']);
    expect(suggestionsFor('zzz', ['events', 'list'])).toEqual([]);
  });
});
