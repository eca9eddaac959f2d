// --inject on an in-process informer's watches (reconcile module mode): each fault, as the reader of the stream sees it.
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/informer/clock.js';
import { ConnectionError } from '../../src/informer/errors.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import type { ListerWatcher, WatchEvent, WatchStream } from '../../src/informer/types.js';
import { generatedStream } from '../../src/informer/watch-streams.js';
import { parseInjectSpec } from '../../src/faults/inject-spec.js';
import { FaultyListerWatcher } from '../../src/faults/faulty-lister-watcher.js';
import { WatchFaults } from '../../src/faults/watch-faults.js';

const pod = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ...extra } });

function setup(...specs: string[]) {
  const fake = new FakeListerWatcher({ resourceVersion: 100 });
  const faults = new WatchFaults(specs.map(parseInjectSpec));
  const fired: { fault: string; rv?: string }[] = [];
  const lw = new FaultyListerWatcher(fake, faults, realClock, (fault, e) => fired.push({ fault, rv: e?.object.metadata.resourceVersion }));
  return { fake, faults, fired, lw };
}

/** Reads until the stream ends (or throws), at most `n` events. */
async function read(stream: WatchStream, n = Infinity): Promise<{ events: WatchEvent[]; error?: unknown }> {
  const events: WatchEvent[] = [];
  try {
    for await (const e of stream) {
      events.push(e);
      if (events.length >= n) break;
    }
  } catch (error) {
    return { events, error };
  }
  return { events };
}

const summary = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}@${e.object.metadata.resourceVersion ?? ''}`.trim());

describe('FaultyListerWatcher', () => {
  it('expire@RV: the event at RV arrives, then the 410 a relisting reflector needs, and the stream ends', async () => {
    const { fake, fired, lw } = setup('expire@102');
    const stream = await lw.watch({ resourceVersion: '100' });
    fake.apply(pod('a'));
    fake.apply(pod('b'));
    fake.apply(pod('c'));
    const { events } = await read(stream);
    expect(summary(events.slice(0, 2))).toEqual(['ADDED a@101', 'ADDED b@102']);
    expect(events[2].type).toBe('ERROR');
    expect(events[2].object).toMatchObject({ code: 410, reason: 'Expired', message: expect.stringContaining('injected by kwatch: expire@102') });
    expect(events).toHaveLength(3);
    expect(fired).toEqual([{ fault: 'expire@102', rv: '102' }]);
  });

  it('drop-connection@RV breaks the connection after the event (a ConnectionError, as a reset socket)', async () => {
    const { fake, lw } = setup('drop-connection@101');
    const stream = await lw.watch({ resourceVersion: '100' });
    fake.apply(pod('a'));
    fake.apply(pod('b'));
    const { events, error } = await read(stream);
    expect(summary(events)).toEqual(['ADDED a@101']);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(String((error as Error).message)).toContain('drop-connection@101');
  });

  it('duplicate@RV delivers the event twice; hide-delete:KEY never delivers that key\'s DELETED', async () => {
    const { fake, fired, lw } = setup('duplicate@101', 'hide-delete:ns/b');
    const stream = await lw.watch({ resourceVersion: '100' });
    fake.apply(pod('a'));
    fake.apply(pod('b'));
    fake.remove('ns/b');
    fake.remove('ns/a');
    const { events } = await read(stream, 4);
    expect(summary(events)).toEqual(['ADDED a@101', 'ADDED a@101', 'ADDED b@102', 'DELETED a@104']);
    expect(fired.map((f) => f.fault)).toEqual(['duplicate@101', 'hide-delete:ns/b']);
  });

  it('a timed fault cuts a watch that is waiting for events, and one due with no watch open fires on the next', async () => {
    const { faults, fired, lw } = setup('expire@1ms');
    faults.start();
    // No watch is open when the time comes: the fault waits for the next one.
    await new Promise((r) => setTimeout(r, 20));
    const { events } = await read(await lw.watch({ resourceVersion: '100' }));
    expect(events.map((e) => e.type)).toEqual(['ERROR']);
    expect(fired.map((f) => f.fault)).toEqual(['expire@1ms']);
    faults.stop();
  });

  it('a watch a timed fault cut, closed by its reader without reading on, is not cut again by the next fault: one record per fault', async () => {
    const { faults, fired, lw } = setup('expire@20ms', 'expire@150ms');
    faults.start();
    const first = await lw.watch({ resourceVersion: '100' });
    // As the reflector does on a 410: read the ERROR, then close() the stream (no return() on its iterator).
    expect((await first[Symbol.asyncIterator]().next()).value?.type).toBe('ERROR');
    first.close();
    const { events } = await read(await lw.watch({ resourceVersion: '100' }));
    expect(events.map((e) => e.type)).toEqual(['ERROR']);
    expect(fired.map((f) => f.fault)).toEqual(['expire@20ms', 'expire@150ms']);
    faults.stop();
  });

  it('delay holds each event back by the same time, not one delay after another', async () => {
    const fake = new FakeListerWatcher({ resourceVersion: 100 });
    const faults = new WatchFaults([parseInjectSpec('delay:150ms')]);
    // A clock that stands still while the burst arrives and moves only by the waits (each lets the in-process events
    // already sent be taken in first, as a real wait would): arrival stamps do not depend on this machine's speed.
    const sleeps: number[] = [];
    let now = 1_700_000_000_000;
    const clock = { ...realClock, now: () => now, sleep: async (ms: number) => { sleeps.push(ms); await new Promise((r) => setImmediate(r)); now += ms; } };
    const lw = new FaultyListerWatcher(fake, faults, clock, () => {});
    faults.start();
    const stream = await lw.watch({ resourceVersion: '100' });
    for (const n of ['a', 'b', 'c', 'd', 'e']) fake.apply(pod(n));
    const { events } = await read(stream, 5);
    expect(summary(events)).toEqual(['ADDED a@101', 'ADDED b@102', 'ADDED c@103', 'ADDED d@104', 'ADDED e@105']);
    // One wait of about the delay for the burst, which arrived at once (not five waits in a row).
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(0);
    expect(sleeps[0]).toBeLessThanOrEqual(150);
    faults.stop();
  });

  it('passes the server\'s ERROR events and bookmarks on, asks no fault about an ERROR, and ends with the watch\'s own failure', async () => {
    const gone = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Gone', message: 'from the server' };
    const failure = new ConnectionError('socket hang up', 'ECONNRESET');
    // The ERROR's object carries the resourceVersion a fault names: an ERROR is never a fault's event.
    const events: WatchEvent[] = [
      { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '150' } } },
      { type: 'ERROR', object: { ...gone, metadata: { resourceVersion: '160' } } as unknown as WatchEvent['object'] },
    ];
    const inner: ListerWatcher = {
      list: () => Promise.reject(new Error('not listed')),
      watch: () => Promise.resolve(generatedStream(async function* () {
        yield* events;
        throw failure;
      })),
    };
    const fired: string[] = [];
    const lw = new FaultyListerWatcher(inner, new WatchFaults([parseInjectSpec('expire@160'), parseInjectSpec('hide-delete:ns/a')]), realClock, (fault) => fired.push(fault));
    const { events: got, error } = await read(await lw.watch({ resourceVersion: '100' }));
    expect(got).toEqual(events);
    expect(error).toBe(failure);
    expect(fired).toEqual([]);
  });

  it('the cuts say what kwatch injected: the 410\'s whole Status, and the reset\'s message and code', async () => {
    const expire = setup('expire@101');
    const expired = await expire.lw.watch({ resourceVersion: '100' });
    expire.fake.apply(pod('a'));
    expect((await read(expired)).events[1].object).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version (injected by kwatch: expire@101)' });
    const drop = setup('drop-connection@101');
    const dropped = await drop.lw.watch({ resourceVersion: '100' });
    drop.fake.apply(pod('a'));
    const { error } = await read(dropped);
    expect((error as Error).message).toBe('connection reset by kwatch --inject drop-connection@101');
    expect((error as ConnectionError).sysCode).toBe('ECONNRESET');
  });

  it('lists pass through untouched; close() ends the stream quietly and closes the server\'s watch', async () => {
    const { fake, lw } = setup('expire@999');
    fake.apply(pod('a'));
    expect((await lw.list({})).items).toHaveLength(1);
    const stream = await lw.watch({ resourceVersion: '101' });
    const watch = await fake.waitForWatch(1);
    stream.close();
    const { events, error } = await read(stream);
    expect(events).toEqual([]);
    expect(error).toBeUndefined();
    await expect.poll(() => watch.closedByClient).toBe(true);
  });
});
