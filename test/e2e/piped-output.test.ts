// End to end through the built CLI (run `npm run build` first): every command's output through a pipe —
// as a script or `| less` reads it — has no escape codes (no colour, no cursor moves; TERM says the
// terminal could) and no line ending in spaces, on stdout and on stderr.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-piped-');
const SIM = ['--sim', '--sim-pods', '12', '--sim-churn', '0'];
const env = { TERM: 'xterm-256color', NO_COLOR: '', KUBECONFIG: join(dir, 'none'), KUBECACHEDIR: join(dir, 'cache') };
const kwatch = (args: string[]) => run(process.execPath, [BIN, ...args], env);
const recording = join(dir, 'pods.ndjson');
const ANNOTATOR = join(import.meta.dirname, '..', '..', 'examples', 'reconcilers', 'annotator.mjs');

const COMMANDS: string[][] = [
  ['events', 'pods', '-A', ...SIM, '--until-synced', '--record', recording],
  ['events', 'pods', '-A', ...SIM, '--until-synced', '--stages', 'all', '-o', 'wide'],
  ['events', 'pods', '-A', ...SIM, '--raw', '--max-events', '1', '--sim-churn', '20'],
  ['replay', recording],
  ['list', 'pods', '-A', ...SIM, '--page-size', '5'],
  ['list', 'pods', '-A', ...SIM, '--compare-watch-list'],
  ['index', '--by', 'nodeName', '--by', 'phase', '-A', ...SIM],
  ['index', '--check', '--by', 'nodeName', '-A', ...SIM],
  ['index', '--by', 'nodeName', '-A', ...SIM, '--watch', '--for', '1s', '--interval', '500ms'],
  ['index', '--by', 'nodeName', '--value', 'node-001', '-A', ...SIM],
  ['api-resources', ...SIM],
  ['discovery', ...SIM, '--explain', 'deploy'],
  ['reconcile', 'deployments.apps', '--with', ANNOTATOR, '-A', ...SIM, '--once'],
  ['--help'],
  ['events', '--help'],
];

async function checkPiped(args: string[]): Promise<void> {
  const res = await kwatch(args);
  expect(res.code, res.stderr).toBeLessThan(2);
  for (const [name, text] of [['stdout', res.stdout], ['stderr', res.stderr]]) {
    expect(text.includes('\x1b'), `${name} holds an escape code:\n${text}`).toBe(false);
    const trailing = text.split('\n').filter((l) => / +$/.test(l));
    expect(trailing, `${name} lines ending in spaces`).toEqual([]);
  }
}

// The first command writes the recording `replay` reads: it runs first. The others each start their own --sim (or
// read that recording); they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
const [RECORD, ...OTHERS] = COMMANDS;

describe('piped output: no escape codes, no trailing spaces', () => {
  it(`kwatch ${RECORD.join(' ')}`, () => checkPiped(RECORD));
});

describe('piped output: no escape codes, no trailing spaces', { timeout: 60_000 }, () => {
  it.each(OTHERS.map((c) => [c.join(' '), c]))('kwatch %s', (_, args) => checkPiped(args as string[]));
});
