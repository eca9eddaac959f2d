// One relist measurement in a fresh process: argv[2] is a JSON spec { url, pods }. Syncs kwatch's informer on every
// pod (list-then-watch as client-go, tracing off), prints {"synced":true}, then waits for the watch to fail with
// 410 Gone (the parent makes the sim expire it) and measures, polling every millisecond:
//   from the 410 Gone of its re-watch (the watch ERROR event) to a synced cache again (the relist listed and every item
//   popped into the indexer), and the peak RSS meanwhile (sampled every 5 ms) next to the peak of the whole run.
// Prints one JSON line { ok, relistMs, items, rssBeforeMB, peakDuringMB, maxRssMB }.
import { clearInterval, setInterval } from 'node:timers';

const spec = JSON.parse(process.argv[2]);
const mb = (bytes) => Math.round(bytes / 1e6);

try {
  const { connectionFromUrl } = await import('../../dist/kube/http/connection.js');
  const { HttpListerWatcher } = await import('../../dist/kube/lister-watchers/http-lister-watcher.js');
  const { SharedIndexInformer, Tracer } = await import('../../dist/informer/index.js');
  const conn = connectionFromUrl(spec.url, { tracer: new Tracer() });
  const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true }, { omitManagedFields: true });
  const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'pods', expectedKind: 'Pod', tracer: new Tracer() });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await informer.whenSynced(ac.signal);
  const reflector = informer.getReflector();
  // A watch open for a while (one that ends within a second counts as a failure and leads to a relist without 410).
  while (reflector.phase.kind !== 'Watching') await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 1500));
  const rssBefore = process.memoryUsage.rss();
  process.stdout.write('{"synced":true}\n');

  const result = await new Promise((resolve, reject) => {
    let t0;
    let peak = 0;
    let lastSample = 0;
    const deadline = setTimeout(() => reject(new Error(`no relist within ${spec.timeoutMs ?? 300_000} ms (expired ${reflector.stats.expired}, relists ${reflector.stats.relists})`)), spec.timeoutMs ?? 300_000);
    const poll = setInterval(() => {
      const now = performance.now();
      if (t0 === undefined) {
        // The re-watch from an expired resourceVersion got 410 Gone (the watch ERROR event): from here to synced.
        if (reflector.stats.expired > 0) t0 = now;
        else return;
      }
      if (now - lastSample >= 5) {
        peak = Math.max(peak, process.memoryUsage.rss());
        lastSample = now;
      }
      // Synced again: the relist has been listed and the FIFO has handed every item to the indexer.
      if (reflector.stats.relists > 0 && informer.fifoLength === 0 && (reflector.phase.kind === 'StartingWatch' || reflector.phase.kind === 'Watching')) {
        clearInterval(poll);
        clearTimeout(deadline);
        resolve({ relistMs: +(now - t0).toFixed(1), peakDuringMB: mb(Math.max(peak, process.memoryUsage.rss())) });
      }
    }, 1);
  });
  const items = informer.getStore().size;
  ac.abort();
  await running.catch(() => {});
  await conn.close();
  process.stdout.write(`${JSON.stringify({ ok: true, ...result, items, rssBeforeMB: mb(rssBefore), maxRssMB: Math.round(process.resourceUsage().maxRSS / 1000) })}\n`);
  process.exit(0);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ ok: false, reason: String(err?.message ?? err).split('\n')[0] })}\n`);
  process.exit(0);
}
