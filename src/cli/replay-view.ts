// The output side of `kwatch replay`: trace records through the stage and key filters into the
// printer (as `kwatch events` prints them), counted for the exit summary on stderr.
import { Tracer, type Stage, type TraceRecord } from '../informer/trace.js';
import { shouldColor } from '../render/color.js';
import { explainsKeys, KEY_CAUSE_REFLECTOR_OPS, stageFilter, type StageSelection } from '../render/stage-filter.js';
import { TraceSummary } from '../render/summary.js';
import { escapeForTerminal } from '../render/terminal-escape.js';
import { createTracePrinter, type TraceOutput } from '../render/trace-printer.js';

export interface ReplayViewOptions {
  output: TraceOutput;
  /** undefined = the default selection (watch,fifo,handler,workqueue and the reflector lifecycle; watch,handler with `key`). */
  stages?: StageSelection;
  diff?: 'changed' | 'all';
  /** Print Secret data and credentials in diffs as they are (default: masked). */
  showSecrets?: boolean;
  /** Follow one object (namespace/name): only its records are printed, with the reflector records that explain them (explainsKeys). */
  key?: string;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  /** The tracer to print from, when others (--trace-out) subscribe to it too (default: a new one). */
  tracer?: Tracer;
}

export interface ReplayView {
  /** Everything emitted here is counted and, when selected, printed. */
  tracer: Tracer;
  summary: TraceSummary;
  /** Writes a message to stderr after the records printed so far (stdout is batched). */
  notice(message: string): void;
  /** Ends the output (closes a json array); the tracer prints nothing afterwards. */
  close(): void;
}

/**
 * Records with op "gap" (the gap a relist covered, see src/kube/recording/resume-watch.ts) are results, not
 * chatter: they are printed whatever the stage selection.
 */
export function openReplayView(o: ReplayViewOptions): ReplayView {
  const out = o.stdout ?? process.stdout;
  const table = o.output === 'table' || o.output === 'wide';
  const printer = createTracePrinter({ output: o.output, stream: out, color: table && shouldColor(out, process.env), stages: 'all', diff: o.diff, showSecrets: o.showSecrets, batch: true });
  const selected = stageFilter(o.stages ?? (o.key ? new Set<Stage>(['watch', 'handler']) : undefined));
  const summary = new TraceSummary();
  const tracer = o.tracer ?? new Tracer();
  let open = true;
  tracer.subscribe((r: TraceRecord) => {
    if (!open) return;
    // The summary counts the run, whatever is shown: a followed key's tombstone came from a relist the key's records do not hold.
    summary.add(r);
    if (o.key !== undefined && r.key !== o.key) {
      if (explainsKeys(r)) printer.write(r);
      return;
    }
    // A followed key's own reflector records (a fault on it, its gap) show whatever the stages.
    if (r.op === 'gap' || selected(r) || (o.key !== undefined && r.stage === 'reflector' && KEY_CAUSE_REFLECTOR_OPS.has(r.op))) printer.write(r);
  });
  return {
    tracer,
    summary,
    notice(message) {
      printer.flush();
      process.stderr.write(`${escapeForTerminal(message, { multiline: true })}\n`);
    },
    close() {
      if (!open) return;
      open = false;
      printer.end();
    },
  };
}
