// `kwatch trace why`: the chain behind a key's newest write, from traces of real reconcile runs (a session over fake
// API resources, recorded as --trace-out keeps them) and, for --exec, from the endpoint's records of a client.
import { describe, expect, it } from 'vitest';
import { explainKey } from '../../src/trace-export/causal-chain.js';
import { findFindings } from '../../src/trace-export/findings.js';
import { isWrite } from '../../src/trace-export/trace-rows.js';
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
