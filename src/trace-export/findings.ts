// What a trace shows that a controller author asks about: loops, fights, periodic writers, stale writes, relist
// storms, stalls and expired resourceVersions watched again. Each finding names the records it rests on, so a
// picture can point at them.
import { previousStep, TraceIndex } from './causal-chain.js';
import { isWrite, objectKeyOf, writeCode, writeFields, writeOk, writerOf, type TraceRow } from './trace-rows.js';

export type FindingKind = 'loop' | 'fight' | 'periodic-writer' | 'stale-write' | 'stale-read' | 'relist-storm' | 'stall' | 'expired-rv-watched';

export interface Finding {
  kind: FindingKind;
  key?: string;
  title: string;
  detail: string;
  /** Records to point at, oldest first. */
  ids: number[];
}

/** Rounds before a self-triggering writer counts as a loop (the endpoint's --loop-threshold default is alike). */
const LOOP_ROUNDS = 3;
const FIGHT_ROUNDS = 2;
const PERIODIC_WRITES = 4;
const RELIST_STORM = 3;
const RELIST_STORM_WINDOW_MS = 60_000;

/** For each write, the write whose echo it reacted to (write → reconcile → echo event → earlier write). */
export function reactedTo(index: TraceIndex, w: TraceRow): TraceRow | undefined {
  let at: TraceRow | undefined = w;
  for (let hops = 0; hops < 4; hops++) {
    at = at && previousStep(index, at);
    if (!at) return undefined;
    if (isWrite(at)) return at;
  }
  return undefined;
}

export function findFindings(rows: readonly TraceRow[], index = new TraceIndex(rows)): Finding[] {
  const out: Finding[] = [];
  const own = new Map<string, TraceRow[]>();
  const cross = new Map<string, { writers: Map<string, number>; ids: number[]; fields: Set<string> }>();
  const writesBy = new Map<string, TraceRow[]>();
  for (const r of rows) {
    if (!isWrite(r)) continue;
    const key = objectKeyOf(r) ?? '';
    const writer = writerOf(r);
    if (writeOk(r)) {
      const list = writesBy.get(`${writer}\u0000${key}`);
      if (list) list.push(r);
      else writesBy.set(`${writer}\u0000${key}`, [r]);
    }
    const before = reactedTo(index, r);
    if (!before) continue;
    if (writerOf(before) === writer) {
      const slot = `${writer}\u0000${key}`;
      const list = own.get(slot);
      if (list) list.push(r);
      else own.set(slot, [before, r]);
    } else {
      let c = cross.get(key);
      if (!c) cross.set(key, (c = { writers: new Map(), ids: [before.id], fields: new Set() }));
      for (const w of [writer, writerOf(before)]) c.writers.set(w, (c.writers.get(w) ?? 0) + 1);
      c.ids.push(r.id);
      for (const f of writeFields(r)) c.fields.add(f);
    }
  }
  const inLoop = new Set<string>();
  for (const [slot, writes] of own) {
    const rounds = writes.length - 1;
    if (rounds < LOOP_ROUNDS) continue;
    const [writer, key] = slot.split('\u0000');
    inLoop.add(slot);
    const fields = [...new Set(writes.flatMap(writeFields))];
    const spanS = (writes[writes.length - 1].time - writes[0].time) / 1000;
    out.push({ kind: 'loop', key, title: `loop: ${writer} on ${key}`, detail: `${rounds} writes, each after the echo of its own previous write${fields.length ? ` (${fields.slice(0, 4).join(', ')})` : ''}${spanS > 0 ? `, ${(rounds / spanS).toFixed(1)}/s` : ''}; since write #${writes[0].id}`, ids: writes.map((w) => w.id) });
  }
  for (const [key, c] of cross) {
    // Whoever only started it (the create the first claim answered) is no party to the fight.
    const writers = [...c.writers].filter(([, n]) => n >= 2).map(([w]) => w).sort();
    if (writers.length < 2 || c.ids.length - 1 < FIGHT_ROUNDS) continue;
    out.push({ kind: 'fight', key, title: `fight: ${writers.join(' and ')} on ${key}`, detail: `${c.ids.length - 1} writes each made after the echo of the other's write${c.fields.size ? ` (${[...c.fields].slice(0, 4).join(', ')})` : ''}`, ids: c.ids });
  }
  for (const [slot, writes] of writesBy) {
    if (inLoop.has(slot) || writes.length < PERIODIC_WRITES) continue;
    const gaps = writes.slice(1).map((w, i) => w.time - writes[i].time).sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)];
    if (median < 1000 || gaps.some((g) => Math.abs(g - median) > median * 0.15)) continue;
    const [writer, key] = slot.split('\u0000');
    out.push({ kind: 'periodic-writer', key, title: `periodic writer: ${writer} on ${key}`, detail: `${writes.length} writes about every ${(median / 1000).toFixed(1)}s, whatever the events`, ids: writes.map((w) => w.id) });
  }
  for (const r of rows) {
    if (r.stage === 'endpoint' && r.op === 'stale-read') out.push({ kind: 'stale-read', key: r.key, title: `stale read: ${String(r.client)} on ${r.key ?? ''}`, detail: String(r.note ?? `wrote from resourceVersion ${String(r.rv)}, older than its own write at ${String(r.ownWrite)}`), ids: [r.id] });
    else if (r.stage === 'endpoint' && r.op === 'stale-write') out.push({ kind: 'stale-write', key: r.key, title: `stale write: ${String(r.client)} on ${r.key ?? ''}`, detail: String(r.note ?? `wrote from resourceVersion ${String(r.rv)}, newest sent ${String(r.newest)}`), ids: [r.id] });
    else if (isWrite(r) && writeCode(r) === 409) out.push({ kind: 'stale-write', key: objectKeyOf(r), title: `409 Conflict: ${writerOf(r)} on ${objectKeyOf(r) ?? ''}`, detail: String(r.error ?? 'the write carried an outdated resourceVersion'), ids: [r.id] });
    else if (r.stage === 'endpoint' && r.op === 'stall') out.push({ kind: 'stall', title: `stall: ${String(r.client)} watching ${String(r.resource)}`, detail: String(r.note ?? ''), ids: [r.id] });
    else if (r.stage === 'reflector' && r.op === 'watchdog') out.push({ kind: 'stall', title: `stall: the watch of ${String(r.name ?? '')} went quiet`, detail: String(r.note ?? r.reason ?? 'no event and no bookmark'), ids: [r.id] });
  }
  out.push(...relistStorms(rows), ...expiredWatchedAgain(rows));
  return out;
}

function relistStorms(rows: readonly TraceRow[]): Finding[] {
  const by = new Map<string, TraceRow[]>();
  for (const r of rows) {
    if (r.op !== 'relist' || (r.stage !== 'reflector' && r.stage !== 'endpoint')) continue;
    const who = r.stage === 'endpoint' ? `${String(r.client)} ${String(r.resource)}` : String(r.name ?? r.resource ?? '');
    const list = by.get(who);
    if (list) list.push(r);
    else by.set(who, [r]);
  }
  const out: Finding[] = [];
  for (const [who, list] of by) {
    for (let i = 0; i + RELIST_STORM - 1 < list.length; i++) {
      const window = list.slice(i, i + RELIST_STORM);
      if (window[window.length - 1].time - window[0].time > RELIST_STORM_WINDOW_MS) continue;
      out.push({ kind: 'relist-storm', title: `relist storm: ${who}`, detail: `${list.length} relists, ${RELIST_STORM} within ${RELIST_STORM_WINDOW_MS / 1000}s (${[...new Set(list.map((r) => String(r.reason ?? '')))].filter(Boolean).slice(0, 3).join('; ')})`, ids: list.map((r) => r.id) });
      break;
    }
  }
  return out;
}

/** A resourceVersion answered 410 Gone, then asked for again by a later watch: the client did not learn. */
function expiredWatchedAgain(rows: readonly TraceRow[]): Finding[] {
  const expired = new Map<string, TraceRow>();
  const lastStart = new Map<string, TraceRow>();
  const out: Finding[] = [];
  for (const r of rows) {
    const gone = (r.stage === 'reflector' && r.op === 'expired') || (r.stage === 'endpoint' && r.op === 'watch' && r.event === 'ERROR' && r.code === 410) || (r.stage === 'watch' && r.op === 'ERROR' && r.code === 410);
    const who = r.stage === 'endpoint' ? `${String(r.client)} ${String(r.resource)}` : String(r.name ?? r.resource ?? '');
    if (gone) {
      const start = lastStart.get(who);
      const rv = start?.rv ?? r.rv;
      if (rv !== undefined) expired.set(`${who} ${String(rv)}`, r);
    } else if (isWatchStart(r) && r.rv !== undefined) {
      const before = expired.get(`${who} ${String(r.rv)}`);
      if (before) out.push({ kind: 'expired-rv-watched', title: `expired resourceVersion watched again: ${who}`, detail: `resourceVersion ${String(r.rv)} was answered 410 Gone (#${before.id}) and watched again (#${r.id}): relist instead`, ids: [before.id, r.id] });
    }
    if (isWatchStart(r)) lastStart.set(who, r);
  }
  return out;
}

function isWatchStart(r: TraceRow): boolean {
  return (r.stage === 'reflector' && r.op === 'watch-start') || (r.stage === 'endpoint' && r.op === 'watch' && r.event === 'start');
}

