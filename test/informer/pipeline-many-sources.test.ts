// A pipeline of many resources hands one stop signal to every informer and controller, each of which listens on it:
// Node's MaxListenersExceededWarning past 10 listeners reached the user's stderr (seen in the full suite, from a
// replayed recording of 300 resources). It is no leak: every listener goes when its member stops.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { buildPipeline } from '../../src/informer/pipeline.js';
import { Tracer } from '../../src/informer/trace.js';

const warnings: Error[] = [];
const onWarning = (w: Error) => void warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

describe('a pipeline of 12 resources', () => {
  it('runs, syncs and stops without a MaxListenersExceededWarning, on its own signal or the caller\'s', async () => {
    process.on('warning', onWarning);
    const sources = Array.from({ length: 12 }, (_, i) => {
      const lw = new FakeListerWatcher();
      lw.seed([{ metadata: { name: `o-${i}`, namespace: 'ns' } }]);
      return { name: `things-${i}`, listerWatcher: lw };
    });
    const pipeline = buildPipeline({ sources, tracer: new Tracer() });
    const stop = new AbortController();
    const done = pipeline.run(stop.signal);
    await pipeline.whenSynced(stop.signal);
    expect(pipeline.hasSynced()).toBe(true);
    stop.abort();
    await done;
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });
});
