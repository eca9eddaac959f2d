// A minimal keeper (keeping-relay.js or keeping-proxy.js) in its own process, so that its heap and its GC are its own,
// not the endpoint's whose floor it measures (bench/endpoint-replay.js). Started by keeper-process.js with
// --expose-gc; argv[2]: 'tcp' or 'http', argv[3]: the target URL. Answers IPC messages ({ id, cmd }) with { id, … }:
//   ready (sent unasked)  → { url }
//   gc                    → a full collection, then {}
//   take                  → { cpuUs, majors, gcMs, events, kept }: CPU, mark-compacts and GC ms since the last take,
//                           and the events and objects kept so far
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { startKeepingRelay } from './keeping-relay.js';
import { startKeepingProxy } from './keeping-proxy.js';

const [kind, target] = process.argv.slice(2);
const keeper = kind === 'http' ? await startKeepingProxy(target) : await startKeepingRelay(target);
const gcSeen = [];
new PerformanceObserver((l) => gcSeen.push(...l.getEntries())).observe({ entryTypes: ['gc'] });
let c0 = process.cpuUsage();
process.on('message', async ({ id, cmd }) => {
  if (cmd === 'gc') {
    globalThis.gc?.();
    // The forced collection's entry reaches the observer later: let it, so that the next take drops it.
    await new Promise((r) => setTimeout(r, 20));
    return process.send({ id });
  }
  if (cmd === 'take') {
    const c = process.cpuUsage(c0);
    c0 = process.cpuUsage();
    const all = gcSeen.splice(0);
    const majors = all.filter((e) => (e.detail?.kind ?? e.kind) === perf.NODE_PERFORMANCE_GC_MAJOR).length;
    return process.send({ id, cpuUs: c.user + c.system, majors, gcMs: all.reduce((a, e) => a + e.duration, 0), events: keeper.events(), kept: keeper.kept.size });
  }
  if (cmd === 'close') {
    await keeper.close();
    process.send({ id });
    process.exit(0);
  }
});
process.send({ url: keeper.url });
