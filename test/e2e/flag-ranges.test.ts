// Bad numbers never reach code (built CLI): every numeric flag has a range checked at parse time, a duration past
// Node's timer range is refused, and what a user's file or flag got wrong is one line blaming it — never
// "internal error … (this is a kwatch bug)", never a value that makes the sim or a timer misbehave.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-e2e-flag-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each case: the arguments and the one line expected on stderr. */
async function expectOneLine(cases: [string[], string | RegExp][]): Promise<void> {
  const results = await Promise.all(cases.map(([args]) => kwatch(args, {})));
  results.forEach((r, i) => {
    const [args, line] = cases[i];
    const what = args.join(' ');
    expect(r.code, what).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean), what).toHaveLength(1);
    if (typeof line === 'string') expect(r.stderr, what).toBe(`${line}\n`);
    else expect(r.stderr, what).toMatch(line);
    expect(r.stderr, what).not.toMatch(/internal error|kwatch bug/);
  });
}

// One range error of each command through the built CLI: an integer out of its range (oclif's parse, then the
// command's one-line message) and a number the command parses itself. Every other numeric flag's range is checked in
// process against the same flag definitions and message (test/cli/flag-ranges-parse.test.ts), without a CLI run each.
describe('numeric flag ranges', () => {
  it('sim: --port, --churn', { timeout: 120_000 }, async () => {
    await expectOneLine([
      [['sim', '--port', '-1'], 'error: invalid argument "-1" for "--port" flag: expected an integer from 0 to 65535'],
      [['sim', '--churn', '1e9'], 'error: invalid --churn "1e9": use a number from 0 to 5000 (changes per second; 0 = static)'],
    ]);
  });

  it('global: -v, --sim-churn', { timeout: 120_000 }, async () => {
    await expectOneLine([
      [['list', 'pods', '--sim', '-v', '-1'], 'error: invalid argument "-1" for "--v" flag: expected an integer from 0 to 10'],
      [['list', 'pods', '--sim', '--sim-churn', '1e9'], 'error: invalid --sim-churn "1e9": use a number from 0 to 5000 (changes per second; 0 = static)'],
    ]);
  });
});

describe('durations past Node\'s timer range (2^31 - 1 ms, about 24.8 days)', () => {
  it('--for, --request-timeout, --debounce and --resync are refused in one line', { timeout: 120_000 }, async () => {
    const mod = join(dir, 'noop.mjs');
    writeFileSync(mod, 'export default { for: "pods", reconcile() {} };\n');
    const limit = 'at most 596h31m23s (about 24.8 days, the longest timer Node.js keeps)';
    await expectOneLine([
      [['events', 'pods', '--sim', '--for', '597h'], `error: invalid --for "597h": ${limit}`],
      [['list', 'pods', '--sim', '--request-timeout', '700h'], `error: invalid --request-timeout "700h": ${limit}`],
      [['reconcile', '--with', mod, '--sim', '--debounce', '700h', '--once'], `error: invalid --debounce "700h": ${limit}`],
      [['events', 'pods', '--sim', '--resync', '700h'], `error: invalid --resync "700h": ${limit}`],
    ]);
  });
});

describe('what the user named wrongly is blamed on it', () => {
  it('--kubeconfig naming a directory', { timeout: 120_000 }, async () => {
    await expectOneLine([[['list', 'pods', '--kubeconfig', dir], `error: the kubeconfig "${dir}" is a directory: name a kubeconfig file (--kubeconfig or $KUBECONFIG)`]]);
  });

  it('a module whose indexer throws: the module\'s file, not a kwatch bug', { timeout: 120_000 }, async () => {
    const mod = join(dir, 'bad-indexer.mjs');
    writeFileSync(mod, `export default { for: 'pods', indexers: { pods: { byBad: () => { throw new Error('boom in my indexer'); } } }, reconcile() {} };\n`);
    const r = await kwatch(['reconcile', '--with', mod, '--sim', '--once'], {});
    // --once is a check: whatever stops it is exit 2 (see reconcile --help).
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: ${mod.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: its indexer "byBad" on pods threw for \\S+/\\S+: boom in my indexer$`, 'm'));
    expect(r.stderr).not.toMatch(/internal error|kwatch bug/);
  });
});
