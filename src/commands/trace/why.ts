// kwatch trace why: one key's causal chain in text, newest first, back to the first cause from outside.
import { Args } from '@oclif/core';
import { TraceFileCommand } from '../../cli/trace-command.js';
import { escapeForTerminal } from '../../render/terminal-escape.js';

export default class TraceWhy extends TraceFileCommand {
  static override summary = 'Why a key was written: its causal chain, newest first, back to the first cause from outside.';
  static override description = `Reads an -o ndjson trace (or a recording, replayed offline) and prints the chain behind the newest write of KEY (namespace/name; or, with no write, its newest reconcile or event): the write, the reconcile that made it, the event that started that reconcile and, when that event was the echo of an earlier write, on through that write — e.g.

  default/web: write #14 annotations.stamp by stamper ← reconcile #13 ← MODIFIED@455 #12 echo of write #11 (own) ← … loop since write #3 (6 rounds) ← …

A loop (a writer reacting to the echo of its own write) is folded after two rounds and named; a fight (two writers reacting to each other's writes) names both writers.`;
  static override examples = ['<%= config.bin %> trace why default/web trace.ndjson'];
  static override args = {
    key: Args.string({ description: 'The object: namespace/name (name for a cluster-scoped object).', required: true }),
    file: Args.string({ description: 'An -o ndjson trace, or a recording (--record).', required: true }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(TraceWhy);
    const { readTraceInput } = await import('../../cli/trace-input.js');
    const rows = await readTraceInput(args.file);
    const { explainKey } = await import('../../trace-export/causal-chain.js');
    for (const line of explainKey(rows, args.key)) process.stdout.write(`${escapeForTerminal(line)}\n`);
  }
}
