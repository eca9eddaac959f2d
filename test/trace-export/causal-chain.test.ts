// `kwatch trace why`: the chain behind a key's newest write, from traces of real reconcile runs (a session over fake
// API resources, recorded as --trace-out keeps them) and, for --exec, from the endpoint's records of a client.
import { describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { chainBack, explainKey, TraceIndex } from '../../src/trace-export/causal-chain.js';
import { findFindings } from '../../src/trace-export/findings.js';
import { isWrite, TraceCollector, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { annotate, fighter, recordRun, stamper, writesDone } from './recorded-runs.js';

/** The record of each step `trace why` names, in its order. */
const stepIds = (line: string) => line.split(' ← ').flatMap((step) => /^(?:ns\/web: )?\S+ #(\d+)/.exec(step)?.[1] ?? []);

describe('trace why on a recorded reconcile run', () => {
  it('a loop: the newest rounds, folded back to the loop\'s first write and what started it (the initial list)', async () => {
    const rows = await recordRun({ c: stamper(6) }, writesDone(6, 7));
    const writes = rows.filter(isWrite);
    const [line, loop, ...rest] = explainKey(rows, 'ns/web');
    expect(rest).toEqual([]);
    const steps = line.split(' ← ');
    expect(steps[0]).toBe(`ns/web: write #${writes[5].id} metadata.annotations.stamp by c`);
    expect(steps.slice(1, 4)).toEqual([expect.stringMatching(/^reconcile #\d+$/), `MODIFIED@1006 #${rows.find((r) => r.echoOf === writes[4].id)!.id} echo of write #${writes[4].id} (own)`, `write #${writes[4].id} metadata.annotations.stamp by c`]);
    expect(steps.slice(9)).toEqual([`… loop since write #${writes[0].id} (5 rounds)`, `write #${writes[0].id} metadata.annotations by c`, expect.stringMatching(/^reconcile #\d+$/), 'listed@1001 #3 (the initial list)']);
    expect(new Set(stepIds(line)).size).toBe(stepIds(line).length);
    expect(loop).toBe(`loop: c rewrote ns/web 5 times, each time after the echo of its own write (metadata.annotations.stamp); since write #${writes[0].id}`);
  });

  it('a short loop that began after another controller\'s write names every step once, back to the initial list', async () => {
    const rows = await recordRun({ kick: annotate('kicked'), c: stamper(3, 'kicked') }, writesDone(4, 8));
    const writes = rows.filter(isWrite);
    const [line, loop] = explainKey(rows, 'ns/web');
    // Folding the loop went back to its first write and printed that write, its reconcile and its event twice.
    expect(stepIds(line)).toHaveLength(12);
    expect(new Set(stepIds(line)).size).toBe(12);
    expect(line).not.toContain('…');
    expect(line).toMatch(new RegExp(`echo of write #${writes[0].id} \\(by kick\\) ← write #${writes[0].id} metadata\\.annotations by kick ← reconcile #\\d+ ← listed@1001 #3 \\(the initial list\\)$`));
    expect(loop).toBe(`loop: c rewrote ns/web 2 times, each time after the echo of its own write (metadata.annotations.stamp); since write #${writes[1].id}`);
  });

  it('a fight: both writers named, each echo of the other\'s write, the fields they fight over', async () => {
    const rows = await recordRun({ alice: fighter('alice', 4), bob: fighter('bob', 4) }, writesDone(8, 10));
    const [line, fight, ...rest] = explainKey(rows, 'ns/web');
    expect(rest).toEqual([]);
    expect(fight).toMatch(/^fight: alice and bob rewrite ns\/web in turn, each after the echo of the other's write \(\d+ rounds; metadata\.annotations\.owner\)$/);
    expect(line).toMatch(/^ns\/web: write #\d+ metadata\.annotations\.owner by (alice|bob) ← reconcile #\d+ ← MODIFIED@\d+ #\d+ echo of write #\d+ \(by (alice|bob)\) ← write/);
    expect(line).toContain('… fight since write #');
    expect(line).toMatch(/ ← listed@1001 #3 \(the initial list\)$/);
    const f = findFindings(rows).find((x) => x.kind === 'fight')!;
    expect(f).toMatchObject({ key: 'ns/web', title: 'fight: alice and bob on ns/web' });
    expect(f.detail).toMatch(/^\d+ writes each made after the echo of the other's write \(metadata\.annotations\.owner/);
  });
});

describe('trace why: echoes the linker could not mark, --exec clients, overlay writes, what it starts from', () => {
  /** Records as the tracer links them, 1 ms apart unless a time is given. */
  function trace(records: (Omit<TraceRecord, 'time'> & { time?: number })[]): TraceRow[] {
    const tracer = new Tracer();
    const collector = new TraceCollector(tracer);
    let t = 1_700_000_000_000;
    for (const r of records) tracer.emit({ ...r, time: r.time ?? (t += 1) } as TraceRecord);
    return collector.stop();
  }

  it('an echo that raced ahead of its write\'s answer is still the write\'s echo (matched by resourceVersion)', async () => {
    const rows = await recordRun({ c: stamper(2) }, writesDone(2, 3), { answerAfterEcho: true });
    const writes = rows.filter(isWrite);
    const echo = rows.find((r) => r.stage === 'watch' && r.rv === writes[0].rv)!;
    // The event came before the first write's answer: the linker left it unmarked.
    expect(echo.echoOf).toBeUndefined();
    expect(new TraceIndex(rows).echoOf(echo)?.id).toBe(writes[0].id);
    expect(explainKey(rows, 'ns/web')[0]).toMatch(new RegExp(`^ns/web: write #${writes[1].id} metadata\\.annotations\\.stamp by c ← reconcile #\\d+ ← MODIFIED@1002 #${echo.id} echo of write #${writes[0].id} \\(own\\) ← write #${writes[0].id} `));
  });

  it('not an echo: another key\'s version, a refused write\'s version, a write answered more than a second after the event', () => {
    const ev = (key: string, rv: string, time: number): Omit<TraceRecord, 'time'> & { time: number } => ({ stage: 'watch', op: 'MODIFIED', key, rv, name: 'pods', time });
    const w = (key: string, rv: string, time: number, extra: Partial<TraceRecord> = {}): Omit<TraceRecord, 'time'> & { time: number } => ({ stage: 'endpoint', op: 'write', client: 'k', resource: 'pods', key, rv, code: 200, time, ...extra });
    // Events first, then the writes' answers (no echoOf: the linker saw no write awaiting them).
    const rows = trace([ev('ns/a', '5', 1000), ev('ns/b', '6', 1000), ev('ns/c', '7', 1000), ev('ns/d', '8', 1000), ev('ns/e', '', 1000), w('ns/a', '5', 2000), w('ns/x', '6', 1100), w('ns/c', '7', 1100, { code: 409 }), w('ns/d', '8', 2001), w('ns/e', '', 1000)]);
    const index = new TraceIndex(rows);
    expect(rows.slice(0, 5).map((r) => index.echoOf(r)?.id)).toEqual([rows[5].id, undefined, undefined, undefined, undefined]);
    // Only change events are echoes; a record's own echoOf is taken as it is.
    expect(index.echoOf(rows[5])).toBeUndefined();
    expect(index.echoOf({ ...rows[1], echoOf: rows[6].id })?.id).toBe(rows[6].id);
    expect(index.echoOf({ ...rows[0], rv: undefined })).toBeUndefined();
  });

  it('an --exec client: each write back through the events the endpoint inferred it followed', () => {
    const ev = (event: string, rv: string): Omit<TraceRecord, 'time'> => ({ stage: 'endpoint', op: 'watch', client: 'k', resource: 'configmaps', key: 'ns/a', rv, event });
    const rows = trace([
      ev('ADDED', '1'),
      { stage: 'endpoint', op: 'write', client: 'k', resource: 'configmaps', key: 'ns/a', rv: '2', code: 200, verb: 'patch', changed: ['data.a', 'data.b', 'data.c', 'data.d'], after: ['ADDED configmaps ns/a@1'] },
      ev('MODIFIED', '2'),
      { stage: 'endpoint', op: 'write', client: 'k', resource: 'configmaps', key: 'ns/a', rv: '3', code: 200, verb: 'patch', changed: ['data.a'], after: ['MODIFIED configmaps ns/a@2 (own write)'] },
    ]);
    expect(explainKey(rows, 'ns/a')).toEqual([`ns/a: write #4 data.a by k ← MODIFIED@2 #3 echo of write #2 (own) ← write #2 data.a,data.b,data.c,… by k ← ADDED@1 #1 (from outside: upstream or another client)`]);
  });

  it('a write kwatch\'s overlay stored comes back as the queue add itself: the next run follows that write', () => {
    const rows = trace([
      { stage: 'reflector', op: 'list-page', name: 'pods', rv: '9', items: 1 },
      { stage: 'fifo', op: 'Replaced', key: 'ns/a', rv: '9', name: 'pods' },
      { stage: 'fifo', op: 'pop', key: 'ns/a', rv: '9' },
      { stage: 'handler', op: 'OnAdd', key: 'ns/a', rv: '9', controller: 'c' },
      { stage: 'workqueue', op: 'add', key: 'ns/a', rv: '9', controller: 'c', queue: 'c' },
      { stage: 'workqueue', op: 'get', key: 'ns/a', controller: 'c', queue: 'c' },
      { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' },
      { stage: 'reconcile', op: 'write', key: 'ns/a', target: 'ns/a', controller: 'c', verb: 'update', rv: 'local-1', mode: 'overlay', changed: ['spec.x'] },
      { stage: 'reconcile', op: 'success', key: 'ns/a', controller: 'c' },
      { stage: 'workqueue', op: 'add', key: 'ns/a', controller: 'c', queue: 'c', reason: { key: 'ns/a', rv: 'local-1', own: true } },
      { stage: 'workqueue', op: 'get', key: 'ns/a', controller: 'c', queue: 'c' },
      { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' },
      { stage: 'reconcile', op: 'write', key: 'ns/a', target: 'ns/a', controller: 'c', verb: 'update', rv: 'local-2', mode: 'overlay', changed: ['spec.x'] },
    ]);
    expect(rows[9].echoOf).toBe(rows[7].id);
    expect(explainKey(rows, 'ns/a')).toEqual(['ns/a: write #13 spec.x by c ← reconcile #12 ← write #8 spec.x by c ← reconcile #7 ← listed@9 #1 (the initial list)']);
  });

  it('with no write it starts from the newest reconcile, then from the newest event; plumbing alone is said so', () => {
    const rows = trace([
      { stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '1', name: 'pods' },
      { stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: '2', name: 'pods' },
      { stage: 'fifo', op: 'Updated', key: 'ns/a', rv: '2' },
      { stage: 'fifo', op: 'pop', key: 'ns/a', rv: '2' },
      { stage: 'handler', op: 'OnUpdate', key: 'ns/a', rv: '2', controller: 'c' },
      { stage: 'workqueue', op: 'add', key: 'ns/a', rv: '2', controller: 'c', queue: 'c' },
      { stage: 'workqueue', op: 'get', key: 'ns/a', controller: 'c', queue: 'c' },
      { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' },
      { stage: 'reconcile', op: 'success', key: 'ns/a', controller: 'c' },
      { stage: 'workqueue', op: 'add-after', key: 'ns/a', controller: 'c', queue: 'c' },
      { stage: 'workqueue', op: 'get', key: 'ns/a', controller: 'c', queue: 'c' },
      { stage: 'reconcile', op: 'start', key: 'ns/a', controller: 'c' },
      { stage: 'watch', op: 'ADDED', key: 'ns/b', rv: '3', name: 'pods' },
      { stage: 'watch', op: 'MODIFIED', key: 'ns/b', name: 'pods' },
      { stage: 'fifo', op: 'Updated', key: 'ns/c', rv: '4' },
    ]);
    // The newest of its two runs.
    expect(explainKey(rows, 'ns/a')).toEqual(['ns/a: reconcile #12 ← MODIFIED@2 #2 (from outside: an upstream change)']);
    expect(explainKey(rows, 'ns/b')).toEqual(['ns/b: MODIFIED@? #14 (from outside: an upstream change)']);
    expect(explainKey(rows, 'ns/c')).toEqual(['ns/c: 1 records, but no write, reconcile or watch event to explain']);
  });
});

describe('trace why: who answers whom', () => {
  /**
   * An --exec run on one ConfigMap: each writer's write is inferred to follow the event of the write before it (the
   * first one follows the ADDED). `writers[i]` makes write i with `fields`.
   */
  function writesInTurn(writers: string[], fields: string[] = ['data.x']): TraceRow[] {
    const tracer = new Tracer();
    const collector = new TraceCollector(tracer);
    let t = 1_700_000_000_000;
    const emit = (r: Omit<TraceRecord, 'time'>) => tracer.emit({ ...r, time: (t += 1) } as TraceRecord);
    const ev = (client: string, event: string, rv: number) => emit({ stage: 'endpoint', op: 'watch', client, resource: 'configmaps', key: 'ns/a', rv: String(rv), event });
    const everyone = [...new Set(writers)];
    for (const c of everyone) ev(c, 'ADDED', 1);
    writers.forEach((w, i) => {
      emit({ stage: 'endpoint', op: 'write', client: w, resource: 'configmaps', key: 'ns/a', rv: String(i + 2), code: 200, verb: 'patch', changed: fields, after: [`${i === 0 ? 'ADDED' : 'MODIFIED'} configmaps ns/a@${i + 1}`] });
      for (const c of everyone) ev(c, 'MODIFIED', i + 2);
    });
    return collector.stop();
  }
  const verdictLines = (writers: string[], fields?: string[]) => explainKey(writesInTurn(writers, fields), 'ns/a').slice(1);

  it('a loop needs two rounds of one writer after its own echo; rounds after another writer\'s are not its loop', () => {
    expect(verdictLines(['a', 'a'])).toEqual([]);
    expect(verdictLines(['a', 'a', 'a'], ['data.a', 'data.b', 'data.c', 'data.d', 'data.e'])).toEqual(['loop: a rewrote ns/a 2 times, each time after the echo of its own write (data.a, data.b, data.c, data.d); since write #2']);
    // b answered a once, then a answered itself once, then b itself once: neither is a loop nor a fight.
    const rows = writesInTurn(['b', 'b', 'a', 'a'], ['data.a', 'data.b', 'data.c']);
    const [line, ...verdicts] = explainKey(rows, 'ns/a');
    expect(verdicts).toEqual([]);
    expect(line).not.toContain('…');
    expect(line.replace(/^ns\/a: /, '').split(' ← ').filter((s) => s.startsWith('write'))).toEqual(['write #12 data.a,data.b,data.c by a', 'write #9 data.a,data.b,data.c by a', 'write #6 data.a,data.b,data.c by b', 'write #3 data.a,data.b,data.c by b']);
  });

  it('a fight needs two writers each in two rounds: a writer that only started it is not one of them', () => {
    expect(verdictLines(['a', 'b', 'a'], ['data.x', 'data.y'])).toEqual(['fight: a and b rewrite ns/a in turn, each after the echo of the other\'s write (2 rounds; data.x, data.y)']);
    expect(verdictLines(['c', 'a', 'b', 'a', 'b'])).toEqual(['fight: a and b rewrite ns/a in turn, each after the echo of the other\'s write (4 rounds; data.x)']);
    expect(verdictLines(['a', 'b', 'c'])).toEqual([]);
    expect(verdictLines(['a', 'b'])).toEqual([]);
  });

  it('a loop of exactly three rounds is folded at its first write; the chain is bounded', () => {
    const rows = writesInTurn(['a', 'a', 'a', 'a']);
    const [line] = explainKey(rows, 'ns/a');
    expect(line).toMatch(/^ns\/a: write #8 data\.x by a ← MODIFIED@4 #7 echo of write #6 \(own\) ← .* ← MODIFIED@2 #3 echo of write #2 \(own\) ← … loop since write #2 \(3 rounds\) ← write #2 data\.x by a ← ADDED@1 #1 \(from outside: upstream or another client\)$/);
    const newest = rows.filter(isWrite).at(-1)!;
    expect(chainBack(new TraceIndex(rows), newest, 3).map((r) => r.id)).toEqual([newest.id, newest.id - 1, newest.id - 2]);
  });
});
