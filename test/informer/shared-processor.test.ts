import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import type { Notification, ResourceEventHandler } from '../../src/informer/processor-listener.js';
import { ProcessorListener } from '../../src/informer/processor-listener.js';
import { SharedProcessor } from '../../src/informer/shared-processor.js';
import { noTracer } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod = (name: string, rv = '1'): KubeObject => ({ kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv } });
const add = (name: string, rv = '1'): Notification => ({ kind: 'add', obj: pod(name, rv), isInInitialList: false });
const resync = (name: string): Notification => ({ kind: 'update', old: pod(name), obj: pod(name), sync: true });
const listener = (clock: FakeClock, handler: ResourceEventHandler, resyncPeriodMs = 0, onError?: (err: unknown) => void) =>
  new ProcessorListener({ name: 'h', handler, requestedResyncPeriodMs: resyncPeriodMs, resyncPeriodMs, clock, tracer: noTracer, onError });
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('SharedProcessor', () => {
  it('a listener added is due the next resync; after it resyncs it is due again only a whole period later', async () => {
    // client-go sharedProcessor.addListener marks the listener syncing (p.listeners[listener] = true), and
    // shouldResync moves each due listener's nextResync to now + its period.
    const clock = new FakeClock();
    const p = new SharedProcessor({ clock, tracer: noTracer, bufferSize: 10 });
    const seen: string[] = [];
    p.addListener(listener(clock, { onUpdate: (_o, n) => void seen.push(n.metadata.name!) }, 3000));
    p.distribute(resync('a'), true);
    await flush();
    expect(seen).toEqual(['a']);
    await clock.advance(3000);
    expect(p.shouldResync()).toBe(true);
    await clock.advance(1000);
    expect(p.shouldResync()).toBe(false);
    p.distribute(resync('b'), true);
    await flush();
    expect(seen).toEqual(['a']);
    await clock.advance(2000);
    expect(p.shouldResync()).toBe(true);
  });

  it('a buffer size below one is one, so the pipeline can still move', () => {
    const p = new SharedProcessor({ clock: new FakeClock(), tracer: noTracer, bufferSize: 0 });
    expect(p.bufferSize).toBe(1);
    expect(p.hasRoom()).toBe(true);
  });
});

describe('ProcessorListener', () => {
  it('a stopped listener buffers nothing more and drops what it held', async () => {
    const clock = new FakeClock();
    const calls: string[] = [];
    let release!: () => void;
    const l = listener(clock, { onAdd: (o) => (calls.push(o.metadata.name!), new Promise<void>((r) => (release = r))) });
    l.add(add('a'));
    await flush();
    l.add(add('b'));
    expect(l.buffered).toBe(1);
    l.stop();
    expect([l.buffered, l.stats.buffered]).toEqual([0, 0]);
    l.add(add('c'));
    expect(l.buffered).toBe(0);
    release();
    await flush();
    expect(calls).toEqual(['a']);
  });

  it('is not idle while a handler\'s promise is pending, and counts a rejected promise as an error', async () => {
    const clock = new FakeClock();
    const errors: unknown[] = [];
    let reject!: (e: Error) => void;
    const l = listener(clock, { onAdd: () => new Promise<void>((_r, j) => (reject = j)) }, 0, (e) => errors.push(e));
    l.add(add('a'));
    await flush();
    expect([l.buffered, l.idle]).toEqual([0, false]);
    reject(new Error('async handler failed'));
    await flush();
    expect([l.idle, l.stats.errors, l.stats.delivered]).toEqual([true, 1, 1]);
    expect((errors[0] as Error).message).toBe('async handler failed');
  });

  it('a room waiter is released only once fewer than its bound notifications wait', async () => {
    const clock = new FakeClock();
    const releases: (() => void)[] = [];
    const l = listener(clock, { onAdd: () => new Promise<void>((r) => releases.push(r)) });
    l.add(add('a'));
    await flush();
    l.add(add('b'));
    l.add(add('c'));
    let roomy = false;
    void l.waitForRoom(2).then(() => (roomy = true));
    releases[0](); // a done; b is taken next, c still waits, but 2 waited when a's delivery was counted
    await flush();
    expect(roomy).toBe(false);
    releases[1]();
    await flush();
    expect(roomy).toBe(true);
  });
});
