// One measurement of bench/live.js in a fresh process: the kwatch pipeline (SharedIndexInformer + dry-run
// Controller) replays the sim's watch history from rvFrom to rvTo as fast as it can, either with tracing off
// or with everything `kwatch events --live` subscribes (stage stats, activity ring, per-key history, the exit
// summary) and the ink dashboard drawing 10 frames a second into a fake terminal (isTTY, 160×45).
//   node bench/lib/live-worker.js '{"url":…,"rvFrom":…,"rvTo":…,"live":true}'   → one JSON line
// live: false (tracing off), 'trace' (a listener that does nothing: the cost of the records alone),
// 'aggregators' (what --live subscribes, nothing drawn), true (--live as a whole).
import { PassThrough, Writable } from 'node:stream';

const spec = JSON.parse(process.argv[2]);
// ink draws only the last frame when CI is set: the dashboard must draw as it does in a terminal.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;

const now = () => performance.now();

async function run() {
  const { connectionFromUrl } = await import('../../dist/kube/http/connection.js');
  const { HttpListerWatcher } = await import('../../dist/kube/lister-watchers/http-lister-watcher.js');
  const { buildPipeline, Tracer } = await import('../../dist/informer/index.js');
  await import('undici');
  const tracer = new Tracer();
  let screen;
  let bytesDrawn = 0;
  if (spec.live === 'trace') tracer.subscribe(() => {});
  if (spec.live === 'aggregators' || typeof spec.only === 'number') {
    // What --live subscribes, without drawing.
    const [{ PipelineStats }, { ActivityLog }, { KeyHistory }, { TraceSummary }] = await Promise.all([
      import('../../dist/render/live/pipeline-stats.js'),
      import('../../dist/render/live/activity-log.js'),
      import('../../dist/render/live/key-history.js'),
      import('../../dist/render/summary.js'),
    ]);
    const parts = [new PipelineStats(), new ActivityLog(), new KeyHistory(), new TraceSummary({ startedAt: Date.now(), now: Date.now })];
    const used = typeof spec.only === 'number' ? [parts[spec.only]] : parts;
    tracer.subscribe((r) => {
      for (const p of used) p.add(r);
    });
  }
  if (spec.live === true) {
    const { startLiveSession } = await import('../../dist/cli/live-session.js');
    const stdout = Object.assign(
      new Writable({
        write(chunk, _enc, cb) {
          bytesDrawn += chunk.length;
          cb();
        },
      }),
      { isTTY: true, columns: 160, rows: 45 },
    );
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
    screen = await startLiveSession({ tracer, info: { server: spec.url, resources: 'pods', namespace: '(all)' }, stdout, stdin, onQuit: () => {} });
  }
  const conn = connectionFromUrl(spec.url, { tracer });
  const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true }, { omitManagedFields: true });
  const target = String(spec.rvTo);
  const p = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer, reconcile: 'dry-run', startAt: { resourceVersion: String(spec.rvFrom), onExpired: 'stop' } });
  const informer = p.informers[0];
  const controller = p.controllers[0];
  let seenTarget;
  const reached = new Promise((resolve) => (seenTarget = resolve));
  let events = 0;
  informer.addEventHandler(
    {
      onAdd: (o) => (events++, o.metadata.resourceVersion === target && seenTarget()),
      onUpdate: (_, o) => (events++, o.metadata.resourceVersion === target && seenTarget()),
    },
    { name: 'bench-probe' },
  );
  const ac = new AbortController();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const running = p.run(ac.signal);
  const timer = setTimeout(() => seenTarget(), spec.timeoutMs ?? 240_000);
  await reached;
  clearTimeout(timer);
  while (controller.queue.len() > 0 || controller.stats.active > 0) await new Promise((r) => setImmediate(r));
  const ms = now() - t0;
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  ac.abort();
  await running.catch(() => {});
  screen?.stop();
  await conn.close();
  return { ms, cpuMs, events, eventsPerSec: Math.round(events / (ms / 1000)), eventsPerCpuSec: Math.round(events / (cpuMs / 1000)), elu: +elu.toFixed(2), bytesDrawn };
}

try {
  const result = await run();
  process.stdout.write(`${JSON.stringify({ ok: true, ...result })}\n`);
  process.exit(0);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ ok: false, reason: String(err?.message ?? err).split('\n')[0] })}\n`);
  process.exit(0);
}
