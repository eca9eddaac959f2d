import { describe, expect, it, vi } from 'vitest';
import { parseInjectSpec } from '../../src/faults/inject-spec.js';
import { WatchFaults } from '../../src/faults/watch-faults.js';

const faults = (...specs: string[]) => new WatchFaults(specs.map(parseInjectSpec));

describe('WatchFaults', () => {
  it('fires an @RV fault once, at the first event with that resourceVersion', () => {
    const f = faults('expire@12', 'duplicate@12', 'drop-connection@20');
    expect(f.forEvent('MODIFIED', 'a/b', '11')).toEqual({ hide: false, duplicate: false, fired: [] });
    expect(f.forEvent('MODIFIED', 'a/b', '12')).toEqual({ hide: false, duplicate: true, then: 'expire', fired: ['expire@12', 'duplicate@12'] });
    expect(f.forEvent('MODIFIED', 'a/c', '12').fired).toEqual([]);
    expect(f.unused()).toEqual(['drop-connection@20']);
  });

  it('hides every DELETED event of a key', () => {
    const f = faults('hide-delete:a/b');
    expect(f.forEvent('DELETED', 'a/b', '5').hide).toBe(true);
    expect(f.forEvent('MODIFIED', 'a/b', '6').hide).toBe(false);
    expect(f.forEvent('DELETED', 'a/b', '7').hide).toBe(true);
  });

  it('fires an @TIME fault on the watches open then, or on the next watch when none is', () => {
    vi.useFakeTimers();
    try {
      const f = faults('expire@5s', 'drop-connection@8s', 'delay:200ms@1s');
      const expired: string[] = [];
      f.start();
      expect(f.delayMs()).toBe(0);
      vi.advanceTimersByTime(1000);
      expect(f.delayMs()).toBe(200);
      const unregister = f.register({ expire: (t) => expired.push(t), drop: () => expired.push('dropped') });
      vi.advanceTimersByTime(4000);
      expect(expired).toEqual(['expire@5000ms']);
      unregister();
      vi.advanceTimersByTime(3000);
      // No watch open at 8s: the next one to open gets it.
      const dropped: string[] = [];
      f.register({ expire: () => dropped.push('expired'), drop: (t) => dropped.push(t) });
      expect(dropped).toEqual(['drop-connection@8000ms']);
      f.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a timed fault that came due with no watch open fires on the first later watch only, and is not reported unused', () => {
    vi.useFakeTimers();
    try {
      const f = faults('expire@2s', 'drop-connection@3s');
      f.start();
      vi.advanceTimersByTime(5000);
      // Both came due with no watch open: waiting for one, still unused.
      expect(f.unused()).toEqual(['expire@2000ms', 'drop-connection@3000ms']);
      const first: string[] = [];
      const unregister = f.register({ expire: (t) => first.push(`expire ${t}`), drop: (t) => first.push(`drop ${t}`) });
      expect(first).toEqual(['expire expire@2000ms', 'drop drop-connection@3000ms']);
      expect(f.unused()).toEqual([]);
      unregister();
      const second: string[] = [];
      f.register({ expire: (t) => second.push(t), drop: (t) => second.push(t) });
      expect(second).toEqual([]);
      // Nor does an event after it carry them.
      expect(f.forEvent('MODIFIED', 'a/b', '40').fired).toEqual([]);
      expect(f.unused()).toEqual([]);
      f.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a timed fault whose time never came is reported unused at the end, and not once it fired', () => {
    vi.useFakeTimers();
    try {
      const f = new WatchFaults(['expire@1s', 'drop-connection@1h'].map(parseInjectSpec), () => Date.now());
      f.start();
      f.register({ expire: () => {}, drop: () => {} });
      vi.advanceTimersByTime(2000);
      expect(f.unused()).toEqual(['drop-connection@3600000ms']);
      f.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  // Mutation testing (issue 39): each case below failed to be caught before.
  it('is empty when it holds only write faults, or nothing', () => {
    expect(faults().empty).toBe(true);
    expect(faults('conflict@1', 'error@2', 'throttle@3').empty).toBe(true);
    for (const watchFault of ['expire@5', 'duplicate@5', 'drop-connection@1s', 'hide-delete:a/b', 'delay:1s']) expect(faults('conflict@1', watchFault).empty, watchFault).toBe(false);
  });

  it('an event without a resourceVersion (or key) fires nothing that is not due', () => {
    const f = faults('expire@12', 'hide-delete:a/b');
    expect(f.forEvent('BOOKMARK', undefined, undefined)).toEqual({ hide: false, duplicate: false, fired: [] });
    expect(f.forEvent('DELETED', undefined, '13')).toEqual({ hide: false, duplicate: false, fired: [] });
    expect(f.unused()).toEqual(['expire@12']);
  });

  it('starts the clock only of @TIME faults: an @RV fault never fires on a timer, a delay without @ is fine', () => {
    vi.useFakeTimers();
    try {
      const f = faults('expire@12', 'delay:200ms');
      const seen: string[] = [];
      f.start();
      f.register({ expire: (t) => seen.push(`expire ${t}`), drop: (t) => seen.push(`drop ${t}`) });
      vi.advanceTimersByTime(60_000);
      expect(seen).toEqual([]);
      expect(f.delayMs()).toBe(200);
      expect(f.forEvent('MODIFIED', 'a/b', '12').then).toBe('expire');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a timed drop-connection drops the open watches; a timed duplicate waits for the next event, also when a watch is open or opens', () => {
    vi.useFakeTimers();
    try {
      const f = faults('drop-connection@1s', 'duplicate@2s', 'duplicate@3s');
      const seen: string[] = [];
      f.start();
      f.register({ expire: (t) => seen.push(`expire ${t}`), drop: (t) => seen.push(`drop ${t}`) });
      vi.advanceTimersByTime(2000);
      expect(seen).toEqual(['drop drop-connection@1000ms']);
      // duplicate@2s came due with a watch open: it acts on an event, not on the watch.
      expect(f.forEvent('MODIFIED', 'a/b', '5')).toEqual({ hide: false, duplicate: true, fired: ['duplicate@2000ms'] });
      const later = faults('duplicate@1s');
      later.start();
      vi.advanceTimersByTime(1000);
      // Due with no watch open: a watch that opens is not dropped or expired by it; its next event is duplicated.
      later.register({ expire: (t) => seen.push(`expire ${t}`), drop: (t) => seen.push(`drop ${t}`) });
      expect(seen).toEqual(['drop drop-connection@1000ms']);
      expect(later.forEvent('ADDED', 'a/b', '1')).toEqual({ hide: false, duplicate: true, fired: ['duplicate@1000ms'] });
      expect(later.unused()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('start() takes write faults and hide-delete beside timed ones; stop() cancels the timers; a watch opening takes the due drop and leaves the due duplicate for the next event', () => {
    vi.useFakeTimers();
    try {
      const seen: string[] = [];
      const watch = { expire: (t: string) => seen.push(`expire ${t}`), drop: (t: string) => seen.push(`drop ${t}`) };
      const stopped = faults('conflict@1', 'hide-delete:a/b', 'expire@1s');
      stopped.start();
      stopped.register(watch);
      stopped.stop();
      vi.advanceTimersByTime(5000);
      expect(seen).toEqual([]);
      const both = faults('drop-connection@1s', 'duplicate@1s');
      both.start();
      vi.advanceTimersByTime(1000);
      both.register(watch);
      expect(seen).toEqual(['drop drop-connection@1000ms']);
      expect(both.forEvent('MODIFIED', 'a/c', '9')).toEqual({ hide: false, duplicate: true, fired: ['duplicate@1000ms'] });
    } finally {
      vi.useRealTimers();
    }
  });
});

