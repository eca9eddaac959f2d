// The causal chain a key's records form: from a write back through the reconcile that made it, the event that
// started that reconcile, and, when that event was the echo of an earlier write, on through that write, to the first
// cause from outside (an upstream change, the initial list). What `kwatch trace why` prints; the HTML report and the
// Perfetto flows draw the same links.
import { eventType, isChangeEvent, isWrite, objectKeyOf, writeCode, writeFields, writeOk, writerOf, type TraceRow } from './trace-rows.js';

export class TraceIndex {
  readonly byId = new Map<number, TraceRow>();
  /** `key@rv` → the write that stored that version: an event that raced ahead of the write's answer is still its echo. */
  private readonly writeByVersion = new Map<string, TraceRow>();
  constructor(readonly rows: readonly TraceRow[]) {
    for (const r of rows) {
      this.byId.set(r.id, r);
      if (isWrite(r) && writeOk(r) && typeof r.rv === 'string' && r.rv !== '') this.writeByVersion.set(`${objectKeyOf(r) ?? ''}@${r.rv}`, r);
    }
  }

  /** The write whose stored result this event delivers, if any. */
  echoOf(r: TraceRow): TraceRow | undefined {
    if (r.echoOf !== undefined) return this.byId.get(r.echoOf);
    if (!isChangeEvent(r) || r.rv === undefined) return undefined;
    const w = this.writeByVersion.get(`${r.key ?? ''}@${String(r.rv)}`);
    return w && w.time <= r.time + 1000 ? w : undefined;
  }

  causesOf(r: TraceRow): TraceRow[] {
    const out: TraceRow[] = [];
    for (const id of r.cause ?? []) {
      const c = this.byId.get(id);
      if (c) out.push(c);
    }
    return out;
  }
}

/** A link of the chain the pictures draw: a write, a reconcile run, an event (maybe the echo of a write), a listing. */
export type ChainStep = TraceRow;

/**
 * The step before this one, skipping the queue's plumbing (fifo, indexer, handler, workqueue): a write's reconcile
 * (or, under --exec, the newest event it was inferred to react to); a reconcile's newest trigger event or, for a
 * write kwatch's overlay stored, that write; an event's write when it is the echo of one.
 */
export function previousStep(index: TraceIndex, r: TraceRow): ChainStep | undefined {
  if (isWrite(r)) return newest(index.causesOf(r).map((c) => (isStep(c) ? c : toStep(index, c))).filter(defined));
  if (r.stage === 'reconcile' && r.op === 'start') return newest(index.causesOf(r).map((c) => toStep(index, c)).filter(defined));
  if (isChangeEvent(r)) return index.echoOf(r);
  return undefined;
}

function isStep(r: TraceRow): boolean {
  return isWrite(r) || isChangeEvent(r) || (r.stage === 'reconcile' && r.op === 'start');
}

/** Follows plumbing records back to the step that started them (at most a few hops: add → handler → pop → delta → event). */
function toStep(index: TraceIndex, r: TraceRow): ChainStep | undefined {
  let at: TraceRow | undefined = r;
  for (let hops = 0; at && hops < 16; hops++) {
    if (at.echoOf !== undefined && !isChangeEvent(at)) return index.byId.get(at.echoOf);
    if (isStep(at) || (at.stage === 'reflector' && (at.op === 'listed' || at.op === 'list-page'))) return at;
    at = newest(index.causesOf(at));
  }
  return undefined;
}

function newest(rows: TraceRow[]): TraceRow | undefined {
  let best: TraceRow | undefined;
  for (const r of rows) if (!best || r.id > best.id) best = r;
  return best;
}

function defined<T>(v: T | undefined): v is T {
  return v !== undefined;
}

/** The chain from `r` back to its first outside cause, newest first (bounded: a loop of hours is long). */
export function chainBack(index: TraceIndex, r: TraceRow, max = 100_000): ChainStep[] {
  const out: ChainStep[] = [r];
  const seen = new Set<number>([r.id]);
  let at: TraceRow | undefined = r;
  while (out.length < max && (at = previousStep(index, at)) && !seen.has(at.id)) {
    seen.add(at.id);
    out.push(at);
  }
  return out;
}

/** The write an event step carries back to, when it is an echo. */
function echoedWrite(index: TraceIndex, step: ChainStep): TraceRow | undefined {
  return isChangeEvent(step) ? index.echoOf(step) : undefined;
}

/** What a chain shows about its writers: rounds where a writer reacted to the echo of its own write, or another's. */
export interface ChainVerdict {
  /** Consecutive rounds (newest first) where a write followed the echo of the same writer's write. */
  loop?: { writer: string; rounds: number; since: TraceRow; fields: string[] };
  /** Writes that followed the echo of another writer's write: who answers whom. */
  fight?: { writers: string[]; rounds: number; fields: string[] };
}

export function judgeChain(chain: ChainStep[]): ChainVerdict {
  const writes = chain.filter(isWrite);
  let ownRounds = 0;
  let since: TraceRow | undefined;
  let crossRounds = 0;
  /** Writer → the rounds it took part in: whoever only started it (a create) is no party to the fight. */
  const crossWriters = new Map<string, number>();
  const fields = new Set<string>();
  // writes[i] came after writes[i + 1] in the chain (newest first): a round is one write reacting to the previous one.
  for (let i = 0; i + 1 < writes.length; i++) {
    const a = writerOf(writes[i]);
    const b = writerOf(writes[i + 1]);
    for (const f of writeFields(writes[i])) fields.add(f);
    if (a === b) {
      if (crossRounds === 0) {
        ownRounds++;
        since = writes[i + 1];
      }
    } else {
      crossRounds++;
      crossWriters.set(a, (crossWriters.get(a) ?? 0) + 1);
      crossWriters.set(b, (crossWriters.get(b) ?? 0) + 1);
    }
  }
  const verdict: ChainVerdict = {};
  const fighters = [...crossWriters].filter(([, n]) => n >= 2).map(([w]) => w).sort();
  if (fighters.length >= 2 && crossRounds >= 2) verdict.fight = { writers: fighters, rounds: crossRounds, fields: [...fields] };
  else if (ownRounds >= 2 && since) verdict.loop = { writer: writerOf(writes[0]), rounds: ownRounds, since, fields: [...fields] };
  return verdict;
}

/** One step in words, e.g. `write #14 annotations.stamp`, `reconcile #13`, `MODIFIED@455 echo of write #12 (own)`. */
export function describeStep(index: TraceIndex, step: ChainStep, next?: ChainStep): string {
  if (isWrite(step)) {
    const fields = writeFields(step);
    const code = writeCode(step);
    return `write #${step.id}${fields.length ? ` ${fields.slice(0, 3).join(',')}${fields.length > 3 ? ',…' : ''}` : ''} by ${writerOf(step)}${!writeOk(step) ? ` (${code ?? 'failed'}${step.error ? `: ${String(step.error).slice(0, 60)}` : ''})` : ''}`;
  }
  if (step.stage === 'reconcile') return `reconcile #${step.id}`;
  if (step.stage === 'reflector') return `listed@${step.rv ?? '?'} #${step.id} (the initial list)`;
  const write = echoedWrite(index, step);
  const at = `${eventType(step)}@${step.rv ?? '?'} #${step.id}`;
  if (write) {
    const by = writerOf(write);
    const reader = next ? writerOf(next) : String(step.client ?? by);
    return `${at} echo of write #${write.id} (${by === reader ? 'own' : `by ${by}`})`;
  }
  return `${at} (from outside: ${step.stage === 'endpoint' ? 'upstream or another client' : 'an upstream change'})`;
}

/**
 * `kwatch trace why KEY`: the newest write of the key (or, with no write, its newest reconcile or event) back to its
 * first outside cause, newest first. A loop is folded after its first rounds; a fight names both writers.
 */
export function explainKey(rows: readonly TraceRow[], key: string): string[] {
  const index = new TraceIndex(rows);
  const ofKey = rows.filter((r) => objectKeyOf(r) === key);
  if (ofKey.length === 0) return [`no record of ${key} in this trace`];
  const start = [...ofKey].reverse().find(isWrite) ?? [...ofKey].reverse().find((r) => r.stage === 'reconcile' && r.op === 'start') ?? [...ofKey].reverse().find(isChangeEvent);
  if (!start) return [`${key}: ${ofKey.length} records, but no write, reconcile or watch event to explain`];
  const chain = chainBack(index, start);
  const verdict = judgeChain(chain);
  const lines: string[] = [];
  const words: string[] = [];
  const SHOWN_ROUNDS = 2;
  let writesShown = 0;
  let folded = false;
  for (let i = 0; i < chain.length; i++) {
    const step = chain[i];
    if (isWrite(step)) writesShown++;
    if (!folded && (verdict.loop || verdict.fight) && writesShown > SHOWN_ROUNDS + 1) {
      folded = true;
      const rounds = verdict.loop?.rounds ?? verdict.fight!.rounds;
      const first = verdict.loop?.since ?? [...chain].reverse().find(isWrite)!;
      const at = chain.indexOf(first);
      // Go on from the loop's first write: what started it. A short loop that began after another writer's write (a
      // create, a claim) has its first write before this step: nothing to fold, and going back would print it twice.
      if (at >= i) {
        words.push(`… ${verdict.loop ? 'loop' : 'fight'} since write #${first.id} (${rounds} rounds)`);
        i = at;
        words.push(describeStep(index, first, chain[at - 1]));
        continue;
      }
    }
    words.push(describeStep(index, step, chain[i - 1]));
  }
  lines.push(`${key}: ${words.join(' ← ')}`);
  if (verdict.loop) {
    const l = verdict.loop;
    lines.push(`loop: ${l.writer} rewrote ${key} ${l.rounds} times, each time after the echo of its own write${l.fields.length ? ` (${l.fields.slice(0, 4).join(', ')})` : ''}; since write #${l.since.id}`);
  }
  if (verdict.fight) {
    const f = verdict.fight;
    lines.push(`fight: ${f.writers.join(' and ')} rewrite ${key} in turn, each after the echo of the other's write (${f.rounds} rounds${f.fields.length ? `; ${f.fields.slice(0, 4).join(', ')}` : ''})`);
  }
  return lines;
}
