// The fake lister-watcher the informer tests stand on: one caller signal across many watches (as a reflector passes
// its run's signal to each watch it opens) must not pile up abort listeners on that signal.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';

describe('FakeListerWatcher', () => {
  it('a watch that ends, by the client or by the server, drops its listener on the caller\'s signal', async () => {
    const lw = new FakeListerWatcher();
    const run = new AbortController();
    for (let i = 0; i < 15; i++) {
      const w = await lw.watch({}, run.signal);
      if (i % 2 === 0) w.close();
      else lw.watches.at(-1)!.end();
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    const open = await lw.watch({}, run.signal);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    run.abort();
    expect(lw.watches.at(-1)!.closedByClient).toBe(true);
    void open;
  });
});
