import { describe, expect, it } from 'vitest';
import { AbortableWaiters } from '../../src/informer/abortable-waiters.js';

describe('AbortableWaiters', () => {
  it('wakes waiters first come first served, and all at once', async () => {
    const w = new AbortableWaiters<number>();
    const a = w.wait();
    const b = w.wait();
    expect(w.resolveFirst(1)).toBe(true);
    w.resolveAll(2);
    expect(await a).toBe(1);
    expect(await b).toBe(2);
    expect(w.resolveFirst(3)).toBe(false);
  });

  it('an abort rejects only the waiters of that signal, with its reason, however many waits it saw', async () => {
    const w = new AbortableWaiters<string>();
    const ac = new AbortController();
    const other = new AbortController();
    const first = w.wait(ac.signal);
    w.resolveFirst('served');
    expect(await first).toBe('served');
    const again = w.wait(ac.signal);
    const kept = w.wait(other.signal);
    ac.abort(new Error('stopped'));
    await expect(again).rejects.toThrow('stopped');
    expect(w.size).toBe(1);
    w.resolveAll('still here');
    expect(await kept).toBe('still here');
    await expect(w.wait(ac.signal)).rejects.toThrow('stopped');
  });
});
