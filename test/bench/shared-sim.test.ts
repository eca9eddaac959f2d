// bench/run.js populates the big sims once and hands them to several benchmark scripts (bench/lib/sim.js): a script
// asking for a sim with the same options talks to that one over its control port instead of populating its own.
// Runs the built sim (npm run build).
import { afterEach, describe, expect, it } from 'vitest';

interface BenchSim { url: string; pods: number; shared?: boolean; command(cmd: object): Promise<Record<string, number>>; close(): Promise<void> }
interface SimLib {
  startSharedSims(options: object[]): Promise<{ sims: BenchSim[]; env: Record<string, string>; close(): Promise<void> }>;
  startSim(options: object): Promise<BenchSim>;
  sharedSimOptions(pods: number): object;
}
const lib = (await import(new URL('../../bench/lib/sim.js', import.meta.url).href)) as SimLib;

const ENV = 'BENCH_SHARED_SIMS';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  delete process.env[ENV];
  for (const c of closers.splice(0).reverse()) await c();
});

describe('bench sims shared by run.js', () => {
  it('a script asking for the same sim gets the shared one, and its writes reach it', async () => {
    const options = { ...lib.sharedSimOptions(30), historyEvents: 1000 };
    const shared = await lib.startSharedSims([options]);
    closers.push(() => shared.close());
    Object.assign(process.env, shared.env);

    const sim = await lib.startSim(options);
    closers.push(() => sim.close());
    expect(sim.shared).toBe(true);
    expect(sim.url).toBe(shared.sims[0].url);
    expect(sim.pods).toBe(30);

    const u = await sim.command({ cmd: 'update', n: 5 });
    expect(u.to - u.from).toBe(5);
    // Another script (connection) sees the same store.
    const other = await lib.startSim(options);
    closers.push(() => other.close());
    expect((await other.command({ cmd: 'state' })).rv).toBe(u.to);
  });

  it('a script asking for other options starts its own sim', async () => {
    const shared = await lib.startSharedSims([{ ...lib.sharedSimOptions(30), historyEvents: 1000 }]);
    closers.push(() => shared.close());
    Object.assign(process.env, shared.env);

    const own = await lib.startSim({ ...lib.sharedSimOptions(20), historyEvents: 1000 });
    closers.push(() => own.close());
    expect(own.shared).toBeUndefined();
    expect(own.url).not.toBe(shared.sims[0].url);
    expect(own.pods).toBe(20);
  });
});
