// Numeric flag ranges, parsed in process with each command's own flag definitions and the message the CLI prints for
// a parse error (src/cli/parse-error.ts). test/e2e/flag-ranges.test.ts runs one range error of each command through the
// built CLI (one line, exit 1, no "internal error"); the other flags take the same path and differ only in their
// range, so a CLI run each (~0.3 s of CPU, a sim process for `kwatch sim`) bought nothing this does not show.
import { Parser } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { parseErrorMessage, type OclifParseError } from '../../src/cli/parse-error.js';
import List from '../../src/commands/list.js';
import Sim from '../../src/commands/sim.js';

type CommandClass = { flags?: Record<string, unknown>; baseFlags?: Record<string, unknown>; args?: Record<string, unknown>; strict?: boolean };

/** What the command prints after `error: ` for `argv`, or 'parsed' when oclif accepts it. */
async function parseErrorLine(cmd: CommandClass, id: string, argv: string[]): Promise<string> {
  const flags = { ...cmd.baseFlags, ...cmd.flags };
  try {
    await Parser.parse(argv, { flags, args: cmd.args, strict: cmd.strict ?? true } as Parameters<typeof Parser.parse>[1]);
  } catch (err) {
    return parseErrorMessage(err as OclifParseError, { bin: 'kwatch', id, flagNames: Object.keys(flags) });
  }
  return 'parsed';
}

describe('numeric flag ranges, in process', () => {
  it.each([
    [['--port', '70000'], 'invalid argument "70000" for "--port" flag: expected an integer from 0 to 65535'],
    [['--pods', '1000000'], 'invalid argument "1000000" for "--pods" flag: expected an integer from 0 to 100000'],
    [['--nodes', '-2'], 'invalid argument "-2" for "--nodes" flag: expected an integer from 0 to 5000'],
    [['--history-events', '-1'], 'invalid argument "-1" for "--history-events" flag: expected an integer from 1 to 1000000'],
    [['--history-age', '-1'], 'invalid argument "-1" for "--history-age" flag: expected an integer from 1 to 2147483'],
    [['--bookmark-interval', '0'], 'invalid argument "0" for "--bookmark-interval" flag: expected an integer from 1 to 2147483'],
    [['--bookmark-interval', '-1'], 'invalid argument "-1" for "--bookmark-interval" flag: expected an integer from 1 to 2147483'],
    [['--max-objects', '-1'], 'invalid argument "-1" for "--max-objects" flag: expected an integer from 0 to 1000000'],
  ])('sim %j', async (argv, line) => {
    expect(await parseErrorLine(Sim as unknown as CommandClass, 'sim', argv)).toBe(line);
  });

  it.each([
    [['--sim-pods', '-1'], 'invalid argument "-1" for "--sim-pods" flag: expected an integer from 0 to 100000'],
    [['--sim-nodes', '9999'], 'invalid argument "9999" for "--sim-nodes" flag: expected an integer from 0 to 5000'],
  ])('list pods --sim %j (the global flags)', async (argv, line) => {
    expect(await parseErrorLine(List as unknown as CommandClass, 'list', ['pods', '--sim', ...argv])).toBe(line);
  });

  it('the bounds themselves are accepted', async () => {
    expect(await parseErrorLine(Sim as unknown as CommandClass, 'sim', ['--port', '65535', '--pods', '100000', '--nodes', '0', '--history-age', '2147483', '--max-objects', '0'])).toBe('parsed');
    expect(await parseErrorLine(List as unknown as CommandClass, 'list', ['pods', '--sim', '--sim-pods', '0', '--sim-nodes', '5000', '-v', '10'])).toBe('parsed');
  });
});
