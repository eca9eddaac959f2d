// The WriteChannel in-process, over a fake catalog, cache and server: what each --writes mode does with a
// write, the answers it gives (404/409 from the cache, or the server's own), which events it marks as the
// controller's own, events, generated names and injected faults.
import { describe, expect, it } from 'vitest';
import { parseInjectSpec } from '../../src/faults/inject-spec.js';
import { WriteFaults } from '../../src/faults/write-faults.js';
import { FakeClock } from '../../src/informer/clock.js';
import { StatusError } from '../../src/informer/errors.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ResourceCatalog, ResourceInfo } from '../../src/reconcile/catalog.js';
import type { SharedInformerFactory } from '../../src/reconcile/informer-factory.js';
import type { Overlay } from '../../src/reconcile/overlay.js';
import type { TriggerReason } from '../../src/reconcile/trigger.js';
import { MaxWritesReached, WriteLimiter } from '../../src/reconcile/write-limiter.js';
import { eventually } from './helpers.js';
import { WriteChannel, type RunRef, type WriteChannelOptions, type WriteMode } from '../../src/reconcile/writes.js';
import type { WriteRequest } from '../../src/reconcile/writer.js';

const configmaps: ResourceInfo = { name: 'configmaps', group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const events: ResourceInfo = { name: 'events', group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };
const cm = (name: string, data: Record<string, string> = {}, rv = '5'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: rv }, data }) as KubeObject;

function setup(mode: WriteMode, o: Partial<WriteChannelOptions> & { answer?: (req: WriteRequest) => Promise<KubeObject | undefined> } = {}) {
  const idx = new Indexer();
  idx.add(cm('present', { a: '1' }));
  const informer = { hasSynced: () => true, getIndexer: () => idx };
  const catalog = { resolveKind: async (_v: string, kind: string) => (kind === 'Event' ? events : configmaps) } as unknown as ResourceCatalog;
  const factory = { existing: (info: ResourceInfo) => (info === configmaps ? { info, informer } : undefined) } as unknown as SharedInformerFactory;
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const sent: WriteRequest[] = [];
  const writer = {
    write: async (req: WriteRequest) => {
      sent.push(req);
      return o.answer ? o.answer(req) : ({ ...(req.body as KubeObject), metadata: { ...(req.body as KubeObject).metadata, name: req.name, namespace: req.namespace, resourceVersion: '9' } } as KubeObject);
    },
  };
  const clock = new FakeClock(1_700_000_000_000);
  const channel = new WriteChannel({ mode, catalog, factory, tracer, clock, writer, ...o });
  const run = (): RunRef => ({ controller: 'ctl', key: 'ns/present', writes: [] });
  const writes = () => records.filter((r) => r.op === 'write') as (TraceRecord & Record<string, any>)[];
  return { channel, run, sent, writes, idx, clock };
}

describe('WriteChannel: intercept', () => {
  it('answers 404 for a write to an object the synced cache does not hold, and 409 for a create of one it does', async () => {
    const { channel, run } = setup('intercept');
    const err = await channel.write(run(), { verb: 'update', obj: cm('absent') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "absent" not found' });
    await expect(channel.write(run(), { verb: 'create', obj: cm('present') })).rejects.toThrow('configmaps "present" already exists');
  });

  it('refuses an object without apiVersion and kind in one line, naming the method', async () => {
    const { channel, run } = setup('intercept');
    await expect(channel.write(run(), { verb: 'update', obj: { metadata: { name: 'x' } } as KubeObject })).rejects.toThrow(
      'ctx.update: the object needs apiVersion and kind (they name the resource it is written to)',
    );
  });

  it('sends an event to events, about an object whatever it carries, with a generated name', async () => {
    const { channel, run, writes } = setup('intercept', { random: () => 0 });
    const r = run();
    await channel.write(r, { verb: 'event', obj: { metadata: { name: 'present', namespace: 'ns' } } as KubeObject, event: { type: 'Normal', reason: 'Synced', message: 'ok' } });
    expect(r.writes).toEqual([{ verb: 'event', resource: 'events', target: `ns/present.${(1_700_000_000_000).toString(16)}bbbbb`, changed: ['(created)'], failed: false, mode: 'intercept' }]);
    expect(writes()[0].request).toMatchObject({ verb: 'create', fieldManager: 'kwatch-ctl', body: { kind: 'Event', reason: 'Synced' } });
  });

  it('names a generateName object with five characters from the seeded random, or from Math.random without one', async () => {
    const seeded = setup('intercept', { random: () => 0.999 });
    const gen = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', generateName: 'job-' } } as unknown as KubeObject;
    const r = seeded.run();
    await seeded.channel.write(r, { verb: 'create', obj: gen });
    expect(r.writes[0].target).toBe('ns/job-99999');
    const plain = setup('intercept');
    const r2 = plain.run();
    await plain.channel.write(r2, { verb: 'create', obj: gen });
    expect(r2.writes[0].target).toMatch(/^ns\/job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('uses the channel fieldManager when given, else kwatch-<controller>', async () => {
    const named = setup('intercept', { fieldManager: 'mine' });
    await named.channel.write(named.run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(named.writes()[0].request.fieldManager).toBe('mine');
  });

  it('has no local layer and no own events without writes sent', () => {
    const { channel } = setup('intercept');
    expect(channel.isLocal('configmaps', '5')).toBe(false);
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', undefined)).toBe(false);
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', '5')).toBe(false);
  });
});

describe('WriteChannel: sent modes', () => {
  it('server-dry-run sends the write with dryRun', async () => {
    const { channel, run, sent } = setup('server-dry-run');
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ verb: 'update', dryRun: true, name: 'present' });
  });

  it('apply lets the server answer a write the cache would refuse, and marks its answer as the controller\'s own', async () => {
    const { channel, run, sent } = setup('apply');
    const got = await channel.write(run(), { verb: 'update', obj: cm('absent', { a: '1' }) });
    expect(sent[0]).toMatchObject({ dryRun: false, name: 'absent' });
    expect(got?.metadata.resourceVersion).toBe('9');
    expect(channel.isOwn('ctl', 'configmaps', 'ns/absent', '9')).toBe(true);
    expect(channel.isOwn('other', 'configmaps', 'ns/absent', '9')).toBe(false);
    expect(channel.isOwn('ctl', 'configmaps', 'ns/absent', undefined)).toBe(false);
  });

  it('marks an event that arrived before its write\'s answer as own, only for the writing controller', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { channel, run } = setup('apply', {
      answer: async (req) => {
        await gate;
        return { ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: '9', uid: 'u1' } } as KubeObject;
      },
    });
    const mine = { reason: 'x' } as unknown as TriggerReason & { own?: boolean };
    const also = { reason: 'y' } as unknown as TriggerReason & { own?: boolean };
    const theirs = { reason: 'z' } as unknown as TriggerReason & { own?: boolean };
    channel.claimLater('ctl', 'configmaps', 'u1', '8', { reason: 'before' } as unknown as TriggerReason);
    const pending = channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    await new Promise((r) => setTimeout(r, 0));
    channel.claimLater('ctl', 'configmaps', 'u1', '9', mine);
    channel.claimLater('ctl', 'configmaps', 'u1', '9', also);
    channel.claimLater('other', 'configmaps', 'u1', '9', theirs);
    channel.claimLater('ctl', 'configmaps', 'u1', undefined, { reason: 'norv' } as unknown as TriggerReason);
    release();
    await pending;
    expect([mine.own, also.own, theirs.own]).toEqual([true, true, undefined]);
  });

  it('answers an injected fault without sending, as a failed write with nothing changed', async () => {
    const { channel, run, sent, writes } = setup('apply', { faults: new WriteFaults([parseInjectSpec('throttle@1')]) });
    const r = run();
    const err = await channel.write(r, { verb: 'update', obj: cm('present', { a: '2' }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status.code).toBe(429);
    expect((err as StatusError).retryAfterSeconds).toBe(1);
    expect(sent).toEqual([]);
    expect(r.writes).toEqual([{ verb: 'update', resource: 'configmaps', target: 'ns/present', mode: 'apply', changed: [], failed: true }]);
    expect(writes()[0]).toMatchObject({ rv: '5', injected: 'throttle@1', status: { code: 429 } });
  });

  it('an injected conflict carries no Retry-After', async () => {
    const { channel, run } = setup('apply', { faults: new WriteFaults([parseInjectSpec('conflict@1')]) });
    const err = (await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) }).catch((e: unknown) => e)) as StatusError;
    expect(err.status.code).toBe(409);
    expect(err.retryAfterSeconds).toBeUndefined();
  });
});

describe('WriteChannel: apply, waiting for its own events', () => {
  it('is busy until the cache holds the answered version of a written object', async () => {
    const { channel, run, idx } = setup('apply');
    expect(channel.awaitingEchoes()).toBe(false);
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(channel.awaitingEchoes()).toBe(true);
    idx.update(cm('present', { a: '2' }, '8'));
    expect(channel.awaitingEchoes()).toBe(true);
    idx.update(cm('present', { a: '2' }, '9'));
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('is busy until a deleted object leaves the cache', async () => {
    const { channel, run, idx } = setup('apply', { answer: async () => undefined });
    await channel.write(run(), { verb: 'delete', obj: cm('present') });
    expect(channel.awaitingEchoes()).toBe(true);
    idx.delete(cm('present'));
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('stops waiting for an echo that never comes after ten seconds, and never waits for a write that changes nothing', async () => {
    const { channel, run, clock } = setup('apply');
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '1' }) });
    expect(channel.awaitingEchoes()).toBe(false);
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    await clock.advance(10_000);
    expect(channel.awaitingEchoes()).toBe(true);
    await clock.advance(1);
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('records the answered version as this controller\'s last write of the key, but not for a delete', async () => {
    const { channel, run } = setup('apply');
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/present')).toBe('9');
    const del = setup('apply');
    await del.channel.write(del.run(), { verb: 'delete', obj: cm('present') });
    expect(del.channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/present')).toBeUndefined();
  });

  it('reports each write with what it changed and whether its kind keeps a generation', async () => {
    const { channel, run, writes } = setup('apply');
    const r = run();
    await channel.write(r, { verb: 'update', obj: cm('present', { a: '2' }) });
    await channel.write(r, { verb: 'update', obj: cm('present', { a: '1' }) });
    expect(r.writes).toEqual([
      { verb: 'update', resource: 'configmaps', target: 'ns/present', mode: 'apply', changed: ['data.a'], failed: false },
      { verb: 'update', resource: 'configmaps', target: 'ns/present', mode: 'apply', changed: [], failed: false },
    ]);
    expect(writes().map((w) => [w.rv, w.noop])).toEqual([['9', undefined], ['9', true]]);
  });
});

describe('WriteChannel: overlay', () => {
  it('applies a changing write to the overlay and answers with its resourceVersion; a write that changes nothing is not applied', async () => {
    const applied: unknown[] = [];
    const overlay = { apply: (...args: unknown[]) => (applied.push(args), 'L1'), isLocal: (_r: string, rv?: string) => rv === 'L1' } as unknown as Overlay;
    const { channel, run } = setup('overlay', { overlay });
    const got = await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(got?.metadata.resourceVersion).toBe('L1');
    expect(applied).toHaveLength(1);
    expect(channel.isLocal('configmaps', 'L1')).toBe(true);
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', 'L1')).toBe(true);
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '1' }) });
    expect(applied).toHaveLength(1);
  });
});

describe('WriteChannel: apply, what the session believes it holds after the answer', () => {
  const generated = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', generateName: 'job-' } } as unknown as KubeObject;
  const answerNamed = (name: string, rv: string, extra: Record<string, unknown> = {}) => async (req: WriteRequest) =>
    ({ ...(req.body as KubeObject), metadata: { ...(req.body as KubeObject).metadata, namespace: 'ns', name, resourceVersion: rv, ...extra } }) as KubeObject;

  it('a generateName create: the object the server named is the controller\'s own and its last write, and its echo ends the wait', async () => {
    const { channel, run, idx } = setup('apply', { random: () => 0, answer: answerNamed('job-x7k2p', '9') });
    const got = await channel.write(run(), { verb: 'create', obj: generated });
    expect(got?.metadata.name).toBe('job-x7k2p');
    expect(channel.isOwn('ctl', 'configmaps', 'ns/job-x7k2p', '9')).toBe(true);
    expect(channel.isOwn('ctl', 'configmaps', 'ns/job-bbbbb', '9')).toBe(false);
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/job-x7k2p')).toBe('9');
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/job-bbbbb')).toBeUndefined();
    // Busy until the server's object reaches the cache, not the name kwatch would have made up.
    expect(channel.awaitingEchoes()).toBe(true);
    idx.add({ ...generated, metadata: { namespace: 'ns', name: 'job-x7k2p', resourceVersion: '9' } } as KubeObject);
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('an answer without a resourceVersion marks nothing own and records no last write', async () => {
    const { channel, run } = setup('apply', { answer: async (req) => ({ ...(req.body as KubeObject), metadata: { namespace: 'ns', name: 'present' } }) as KubeObject });
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/present')).toBeUndefined();
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', '5')).toBe(false);
  });

  it('an Event it records is marked own but is no last write of the object, and nothing waits for its echo (events are not watched)', async () => {
    const { channel, run } = setup('apply', { random: () => 0 });
    const r = run();
    await channel.write(r, { verb: 'event', obj: cm('present'), event: { type: 'Normal', reason: 'Synced', message: 'ok' } });
    const target = r.writes[0].target;
    expect(channel.isOwn('ctl', 'events', target, '9')).toBe(true);
    expect(channel.ownWrites.lastRv('ctl', 'events', target)).toBeUndefined();
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('a write to an object recreated under the same name (another uid) does not claim the other object\'s event', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { channel, run } = setup('apply', {
      answer: async (req) => {
        await gate;
        return { ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: '9', uid: 'new' } } as KubeObject;
      },
    });
    const old = { reason: 'old' } as unknown as TriggerReason & { own?: boolean };
    const pending = channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    await new Promise((r) => setTimeout(r, 0));
    channel.claimLater('ctl', 'configmaps', 'old', '9', old);
    release();
    await pending;
    expect(old.own).toBeUndefined();
  });

  it('an event claimed without a uid, or answered without one, is matched by its version alone', async () => {
    for (const [eventUid, answerUid] of [[undefined, 'u1'], ['u1', undefined]] as const) {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const { channel, run } = setup('apply', {
        answer: async (req) => {
          await gate;
          return { ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: '9', ...(answerUid ? { uid: answerUid } : {}) } } as KubeObject;
        },
      });
      const reason = { reason: 'x' } as unknown as TriggerReason & { own?: boolean };
      const pending = channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
      await new Promise((r) => setTimeout(r, 0));
      channel.claimLater('ctl', 'configmaps', eventUid, '9', reason);
      release();
      await pending;
      expect(reason.own).toBe(true);
    }
  });

  it('an event claimed while one write was in flight is forgotten once none is: a later answer at that version does not claim it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let answers = 0;
    const { channel, run } = setup('apply', {
      answer: async (req) => {
        answers++;
        if (answers === 1) await gate;
        return { ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: answers === 1 ? '9' : '10' } } as KubeObject;
      },
    });
    const stray = { reason: 'stray' } as unknown as TriggerReason & { own?: boolean };
    const first = channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    await new Promise((r) => setTimeout(r, 0));
    channel.claimLater('ctl', 'configmaps', undefined, '10', stray);
    release();
    await first;
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '3' }) });
    expect(stray.own).toBeUndefined();
  });

  it('a write the cache would refuse is reported as the cache disagreeing, and the server\'s refusal as a failed write', async () => {
    const refusal = new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'configmaps "absent" not found' });
    const { channel, run, writes } = setup('apply', { answer: async () => { throw refusal; } });
    const r = run();
    await expect(channel.write(r, { verb: 'update', obj: cm('absent', { a: '1' }) })).rejects.toBe(refusal);
    expect(r.writes).toEqual([{ verb: 'update', resource: 'configmaps', target: 'ns/absent', mode: 'apply', changed: ["(the cache disagrees: see the server's answer)"], failed: true }]);
    expect(writes()[0]).toMatchObject({ status: { code: 404, reason: 'NotFound' }, error: 'configmaps "absent" not found' });
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('intercept refuses what the cache refuses, with nothing changed', async () => {
    const { channel, run } = setup('intercept');
    const r = run();
    await channel.write(r, { verb: 'update', obj: cm('absent') }).catch(() => {});
    expect(r.writes).toEqual([{ verb: 'update', resource: 'configmaps', target: 'ns/absent', mode: 'intercept', changed: [], failed: true }]);
  });

  it('--max-writes: the write past the cap is not sent, fails, and tells the session to stop', async () => {
    const clock = new FakeClock(0);
    const stops: MaxWritesReached[] = [];
    const { channel, run, sent } = setup('apply', { limiter: new WriteLimiter({ qps: 100, burst: 100, maxWrites: 1 }, clock), onLimit: (e) => stops.push(e) });
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    const r = run();
    const err = await channel.write(r, { verb: 'update', obj: cm('present', { a: '3' }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MaxWritesReached);
    expect(stops).toEqual([err]);
    expect(sent).toHaveLength(1);
    expect(r.writes).toMatchObject([{ failed: true }]);
  });

  it('a limiter that fails otherwise (the run aborted) does not stop the session', async () => {
    const stops: unknown[] = [];
    const limiter = { take: async () => { throw new Error('aborted'); } } as unknown as WriteLimiter;
    const { channel, run } = setup('apply', { limiter, onLimit: (e) => stops.push(e) });
    await expect(channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) })).rejects.toThrow('aborted');
    expect(stops).toEqual([]);
  });

  it('a delete the server answers with the object marked deleting: busy until that version reaches the cache', async () => {
    const { channel, run, idx } = setup('apply', { answer: answerNamed('present', '10', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x'] }) });
    await channel.write(run(), { verb: 'delete', obj: cm('present') });
    expect(channel.awaitingEchoes()).toBe(true);
    idx.update(cm('present', { a: '1' }, '10'));
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('says a write keeps a generation when the cached object, the answer or the local result carries one', async () => {
    const withGen = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, generation: 1 } }) as KubeObject;
    const cached = setup('apply');
    cached.idx.update(withGen(cm('present')));
    const r1 = cached.run();
    await cached.channel.write(r1, { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(r1.writes[0].generation).toBe(true);
    const answered = setup('apply', { answer: answerNamed('fresh', '9', { generation: 1 }) });
    const r2 = answered.run();
    await answered.channel.write(r2, { verb: 'create', obj: cm('fresh') });
    expect(r2.writes[0].generation).toBe(true);
    const local = setup('intercept');
    const r3 = local.run();
    await local.channel.write(r3, { verb: 'create', obj: withGen(cm('fresh')) });
    expect(r3.writes[0].generation).toBe(true);
    const none = setup('apply');
    const r4 = none.run();
    await none.channel.write(r4, { verb: 'update', obj: cm('present', { a: '2' }) });
    expect('generation' in r4.writes[0]).toBe(false);
  });

  it('server-dry-run records no own event and no last write, and waits for no echo', async () => {
    const { channel, run } = setup('server-dry-run');
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', '9')).toBe(false);
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/present')).toBeUndefined();
    expect(channel.awaitingEchoes()).toBe(false);
  });
});

describe('WriteChannel: the write as the server would see it', () => {
  const gen = (o: KubeObject, extra: Record<string, unknown>) => ({ ...o, metadata: { ...o.metadata, ...extra } }) as KubeObject;

  it('refuses what is not an object, and an object without a name (a generateName only for a create), naming the method', async () => {
    const { channel, run, writes } = setup('intercept');
    await expect(channel.write(run(), { verb: 'update', obj: null as unknown as KubeObject })).rejects.toThrow('ctx.update: expected a Kubernetes object');
    await expect(channel.write(run(), { verb: 'patch', obj: 'cm' as unknown as KubeObject })).rejects.toThrow('ctx.patch: expected a Kubernetes object');
    await expect(channel.write(run(), { verb: 'update-status', obj: { apiVersion: 'v1', metadata: {} } as unknown as KubeObject })).rejects.toThrow('ctx.updateStatus: the object needs apiVersion and kind');
    await expect(channel.write(run(), { verb: 'patch-status', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns' } } as KubeObject })).rejects.toThrow('ctx.patchStatus: the object needs metadata.name');
    await expect(channel.write(run(), { verb: 'update', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'x-' } } as unknown as KubeObject })).rejects.toThrow('ctx.update: the object needs metadata.name');
    await expect(channel.write(run(), { verb: 'update', obj: { apiVersion: 'v1', kind: 'ConfigMap' } as unknown as KubeObject })).rejects.toThrow('ctx.update: the object needs metadata.name');
    expect(writes()).toEqual([]);
  });

  it('does not keep the caller\'s object: a later change to it changes neither the report nor the overlay', async () => {
    const { channel, run, writes } = setup('intercept');
    const obj = cm('present', { a: '2' });
    await channel.write(run(), { verb: 'update', obj });
    (obj.data as Record<string, string>).a = '3';
    obj.metadata.name = 'other';
    expect(writes()[0].request.body).toMatchObject({ metadata: { name: 'present' }, data: { a: '2' } });
  });

  it('puts a namespaced object without a namespace in the run key\'s namespace', async () => {
    const { channel, run, writes } = setup('intercept');
    const r = run();
    await channel.write(r, { verb: 'create', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fresh' } } as KubeObject });
    expect(r.writes[0].target).toBe('ns/fresh');
    expect(writes()[0].request).toMatchObject({ namespace: 'ns', body: { metadata: { namespace: 'ns', name: 'fresh' } } });
  });

  it('sends each verb as kube\'s REST call: the status subresource, the patch type and force, a delete\'s uid precondition', async () => {
    const { channel, run, writes } = setup('intercept');
    const present = gen(cm('present', { a: '1' }), { uid: 'u1' });
    await channel.write(run(), { verb: 'update-status', obj: { ...present, status: { ok: true } } as KubeObject });
    await channel.write(run(), { verb: 'patch', obj: present, patch: { data: { a: '2' } } });
    await channel.write(run(), { verb: 'patch-status', obj: present, patch: [{ op: 'add', path: '/status', value: { ok: true } }], options: { type: 'json' } });
    await channel.write(run(), { verb: 'patch', obj: present, patch: { data: { a: '3' } }, options: { type: 'apply', force: true, fieldManager: 'me' } });
    await channel.write(run(), { verb: 'delete', obj: present });
    await channel.write(run(), { verb: 'delete', obj: cm('present') });
    const requests = writes().map((w) => { const { resource: _r, ...rest } = w.request as WriteRequest; return rest; });
    expect(requests[0]).toEqual({ verb: 'update', namespace: 'ns', name: 'present', fieldManager: 'kwatch-ctl', subresource: 'status', body: expect.objectContaining({ status: { ok: true } }) });
    expect(requests[1]).toEqual({ verb: 'patch', namespace: 'ns', name: 'present', fieldManager: 'kwatch-ctl', body: { data: { a: '2' } }, patchType: 'merge', force: undefined, subresource: undefined });
    expect(requests[2]).toMatchObject({ verb: 'patch', patchType: 'json', subresource: 'status' });
    expect(requests[3]).toMatchObject({ verb: 'patch', patchType: 'apply', force: true, fieldManager: 'me', subresource: undefined });
    expect(requests[4]).toEqual({ verb: 'delete', namespace: 'ns', name: 'present', fieldManager: 'kwatch-ctl', body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'u1' } } });
    expect(requests[5].body).toEqual({ apiVersion: 'v1', kind: 'DeleteOptions' });
  });

  it('reports what each verb changes against the cached object', async () => {
    const { channel, run, idx } = setup('intercept');
    idx.update({ ...cm('present', { a: '1' }), status: { phase: 'old' } } as KubeObject);
    const r = run();
    // updateStatus keeps the cached spec and data: only status changes.
    await channel.write(r, { verb: 'update-status', obj: { ...cm('present', { a: 'ignored' }), status: { phase: 'new' } } as KubeObject });
    await channel.write(r, { verb: 'patch-status', obj: cm('present'), patch: { data: { a: 'ignored' }, status: { phase: 'new' } } });
    await channel.write(r, { verb: 'patch', obj: cm('present'), patch: { data: { b: '2' } } });
    await channel.write(r, { verb: 'patch', obj: cm('present'), patch: [{ op: 'replace', path: '/data/a', value: '9' }], options: { type: 'json' } });
    await channel.write(r, { verb: 'update', obj: cm('present', { a: '1' }, '') });
    expect(r.writes.map((w) => w.changed)).toEqual([['status.phase'], ['status.phase'], ['data.b'], ['data.a'], ['status']]);
  });

  it('an update at an older resourceVersion than the cached one is a 409 Conflict, as the server answers', async () => {
    const { channel, run } = setup('intercept');
    const err = (await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }, '4') }).catch((e: unknown) => e)) as StatusError;
    expect(err).toBeInstanceOf(StatusError);
    expect(err.status).toMatchObject({ code: 409, reason: 'Conflict', details: { name: 'present', kind: 'configmaps', group: '' }, message: 'Operation cannot be fulfilled on configmaps "present": the object has been modified; please apply your changes to the latest version and try again' });
  });

  it('a 404 names the resource with its group', async () => {
    const deployments: ResourceInfo = { name: 'deployments.apps', group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
    const idx = new Indexer();
    const informer = { hasSynced: () => true, getIndexer: () => idx };
    const channel = new WriteChannel({
      mode: 'intercept', tracer: new Tracer(), clock: new FakeClock(0),
      catalog: { resolveKind: async () => deployments } as unknown as ResourceCatalog,
      factory: { existing: () => ({ informer }) } as unknown as SharedInformerFactory,
    });
    const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'ns', name: 'web' } } as KubeObject;
    await expect(channel.write({ controller: 'c', key: 'ns/web', writes: [] }, { verb: 'patch', obj, patch: {} })).rejects.toThrow('deployments.apps "web" not found');
  });

  it('a resource no synced informer holds: nothing is refused, and the effect is unknown', async () => {
    const { channel, run } = setup('intercept');
    const r = run();
    const ev = { apiVersion: 'v1', kind: 'Event', metadata: { namespace: 'ns', name: 'e1' } } as KubeObject;
    await channel.write(r, { verb: 'update', obj: ev });
    await channel.write(r, { verb: 'update-status', obj: ev });
    await channel.write(r, { verb: 'patch', obj: ev, patch: { note: 'x' } });
    await channel.write(r, { verb: 'delete', obj: ev });
    const notCached = '(not in the cache: the resource is not watched)';
    expect(r.writes.map((w) => [w.failed, w.changed])).toEqual([[false, [notCached]], [false, [notCached]], [false, [notCached]], [false, ['(deleted)']]]);
  });

  it('an informer that has not synced yet refuses nothing either', async () => {
    const { channel, run } = setup('intercept', {});
    const unsynced = new WriteChannel({ ...(channel as unknown as { o: WriteChannelOptions }).o, factory: { existing: () => ({ informer: { hasSynced: () => false, getIndexer: () => new Indexer() } }) } as unknown as SharedInformerFactory });
    const r = run();
    await unsynced.write(r, { verb: 'update', obj: cm('absent') });
    expect(r.writes[0]).toMatchObject({ failed: false, changed: ['(not in the cache: the resource is not watched)'] });
  });

  it('a delete of an object with finalizers marks it deleting (seconds, UTC) once; removing the last finalizer then deletes it', async () => {
    const { channel, run, idx, clock } = setup('overlay', { overlay: { apply: () => 'L1', isLocal: () => false } as unknown as Overlay });
    idx.update(gen(cm('present'), { finalizers: ['a', 'b'] }));
    const r = run();
    const marked = await channel.write(r, { verb: 'delete', obj: cm('present') });
    expect(marked?.metadata.deletionTimestamp).toBe(new Date(1_700_000_000_000).toISOString().replace('.000Z', 'Z'));
    expect(r.writes[0].changed).toEqual(['metadata.deletionTimestamp']);
    const deleting = gen(cm('present'), { finalizers: ['a', 'b'], deletionTimestamp: '2023-11-14T22:13:20Z' });
    idx.update(deleting);
    await clock.advance(5_000);
    expect(await channel.write(r, { verb: 'delete', obj: cm('present') })).toMatchObject({ metadata: { deletionTimestamp: '2023-11-14T22:13:20Z' } });
    expect(r.writes[1].changed).toEqual([]);
    await channel.write(r, { verb: 'patch', obj: deleting, patch: { metadata: { finalizers: ['b'] } } });
    expect(r.writes[2].changed).toEqual(['metadata.finalizers']);
    idx.update(gen(cm('present'), { finalizers: ['b'], deletionTimestamp: '2023-11-14T22:13:20Z' }));
    const gone = await channel.write(r, { verb: 'patch', obj: deleting, patch: { metadata: { finalizers: [] } } });
    expect(gone).toBeUndefined();
    expect(r.writes[3].changed).toEqual(['metadata.finalizers', '(deleted: its last finalizer is gone)']);
  });

  it('removing finalizers from an object not marked deleting keeps it', async () => {
    const { channel, run, idx } = setup('intercept');
    idx.update(gen(cm('present'), { finalizers: ['a'] }));
    const r = run();
    const kept = await channel.write(r, { verb: 'patch', obj: cm('present'), patch: { metadata: { finalizers: null } } });
    expect(kept?.metadata.name).toBe('present');
    expect(r.writes[0].changed).not.toContain('(deleted: its last finalizer is gone)');
  });

  it('overlay keeps an edit of a cached object as a merge patch without its resourceVersion, a new object whole, a delete as a delete', async () => {
    const edits: unknown[] = [];
    const overlay = { apply: (_i: unknown, _k: unknown, _r: unknown, edit: unknown) => (edits.push(edit), 'L1'), isLocal: () => false } as unknown as Overlay;
    const { channel, run } = setup('overlay', { overlay });
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }, '5') });
    await channel.write(run(), { verb: 'create', obj: cm('fresh', { b: '1' }, '') });
    const deleted = await channel.write(run(), { verb: 'delete', obj: cm('present') });
    expect(edits).toEqual([{ type: 'merge', patch: { data: { a: '2' } } }, { type: 'object', obj: expect.objectContaining({ metadata: expect.objectContaining({ name: 'fresh' }) }) }, { type: 'delete' }]);
    expect(deleted).toBeUndefined();
    // An update sent without a resourceVersion (as many controllers write): the edit does not blank the version either.
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '3' }, '') });
    const last = edits[3] as { type: string; patch: { data: unknown; metadata?: Record<string, unknown> } };
    expect([last.type, last.patch.data, last.patch.metadata?.resourceVersion]).toEqual(['merge', { a: '3' }, undefined]);
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/present')).toBe('L1');
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', 'L1')).toBe(true);
  });

  it('an Event as client-go records it: about the object, in its namespace, from the controller, timestamps in seconds', async () => {
    const { channel, run, writes } = setup('intercept', { random: () => 0 });
    const about = gen(cm('present'), { uid: 'u1' });
    await channel.write(run(), { verb: 'event', obj: about, event: { type: 'Warning', reason: 'Failed', message: 'no' } });
    await channel.write(run(), { verb: 'event', obj: { apiVersion: 'v1', kind: 'Node' } as unknown as KubeObject });
    const [first, second] = writes().map((w) => (w.request as WriteRequest).body as Record<string, any>);
    expect(first).toEqual({
      apiVersion: 'v1', kind: 'Event',
      metadata: { namespace: 'ns', name: `present.${(1_700_000_000_000).toString(16)}bbbbb` },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'present', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
      type: 'Warning', reason: 'Failed', message: 'no',
      source: { component: 'ctl' }, reportingComponent: 'ctl',
      firstTimestamp: '2023-11-14T22:13:20Z', lastTimestamp: '2023-11-14T22:13:20Z', count: 1,
    });
    expect(second).toMatchObject({ metadata: { namespace: 'default', name: `object.${(1_700_000_000_000).toString(16)}bbbbb` }, type: 'Normal', reason: '', message: '' });
  });

  it('refuses a write after the run\'s --reconcile-timeout, naming the method', async () => {
    const { channel, run } = setup('intercept');
    await expect(channel.write({ ...run(), expired: true }, { verb: 'event', obj: cm('present') })).rejects.toThrow("deadline exceeded: ctx.recordEvent after the run's --reconcile-timeout is refused");
  });
});

describe('WriteChannel: survivors of the fifth round', () => {
  it('keeps every write\'s own mark: a second write does not forget the first, and waits for each object\'s echo', async () => {
    let n = 8;
    const { channel, run, idx } = setup('apply', { answer: async (req) => ({ ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: String(++n) } }) as KubeObject });
    expect(channel.mode).toBe('apply');
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    await channel.write(run(), { verb: 'create', obj: cm('fresh', { b: '1' }, '') });
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', '9')).toBe(true);
    expect(channel.isOwn('ctl', 'configmaps', 'ns/fresh', '10')).toBe(true);
    idx.add(cm('fresh', { b: '1' }, '10'));
    expect(channel.awaitingEchoes()).toBe(true);
    idx.update(cm('present', { a: '2' }, '9'));
    expect(channel.awaitingEchoes()).toBe(false);
  });

  it('an early event of another controller at the answered version is not marked own', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { channel, run } = setup('apply', { answer: async (req) => (await gate, { ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: '9' } }) as KubeObject });
    const theirs = { reason: 'z' } as unknown as TriggerReason & { own?: boolean };
    const pending = channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    await new Promise((r) => setTimeout(r, 0));
    channel.claimLater('other', 'configmaps', undefined, '9', theirs);
    release();
    await pending;
    expect(theirs.own).toBeUndefined();
  });

  it('two writes in flight: the first answer does not drop the early event of the second', async () => {
    const gates = new Map<string, () => void>();
    const { channel, run } = setup('apply', {
      answer: async (req) => {
        await new Promise<void>((resolve) => gates.set(req.name, resolve));
        return { ...(req.body as KubeObject), metadata: { namespace: 'ns', name: req.name, resourceVersion: req.name === 'present' ? '9' : '10' } } as KubeObject;
      },
    });
    const second = { reason: 'b' } as unknown as TriggerReason & { own?: boolean };
    const a = channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    const b = channel.write(run(), { verb: 'create', obj: cm('fresh', {}, '') });
    await eventually(() => gates.size === 2);
    channel.claimLater('ctl', 'configmaps', undefined, '10', second);
    gates.get('present')!();
    await a;
    gates.get('fresh')!();
    await b;
    expect(second.own).toBe(true);
  });

  it('--max-writes without a stop callback still refuses the write with its own error', async () => {
    const { channel, run } = setup('apply', { limiter: new WriteLimiter({ qps: 1, burst: 1, maxWrites: 0 }, new FakeClock(0)) });
    await expect(channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) })).rejects.toBeInstanceOf(MaxWritesReached);
  });

  it('overlay: a delete is no last write of the key', async () => {
    const overlay = { apply: () => 'L1', isLocal: () => false } as unknown as Overlay;
    const { channel, run } = setup('overlay', { overlay });
    await channel.write(run(), { verb: 'delete', obj: cm('present') });
    expect(channel.ownWrites.lastRv('ctl', 'configmaps', 'ns/present')).toBeUndefined();
    expect(channel.isOwn('ctl', 'configmaps', 'ns/present', 'L1')).toBe(true);
  });

  it('an injected fault names the object in its answer; a refusal is a Failure Status as the server sends it', async () => {
    const { channel, run, writes } = setup('apply', { faults: new WriteFaults([parseInjectSpec('conflict@1')]) });
    const err = (await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) }).catch((e: unknown) => e)) as StatusError;
    expect(err.status.message).toContain('configmaps "present"');
    expect(writes()[0]).toMatchObject({ stage: 'reconcile', op: 'write', controller: 'ctl', key: 'ns/present' });
    const local = setup('intercept');
    const exists = (await local.channel.write(local.run(), { verb: 'create', obj: cm('present') }).catch((e: unknown) => e)) as StatusError;
    expect(exists.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'AlreadyExists', message: 'configmaps "present" already exists', details: { name: 'present', group: '', kind: 'configmaps' } });
  });

  it('refuses an object with a kind but no apiVersion, and a create with neither name nor generateName (or no metadata)', async () => {
    const { channel, run } = setup('intercept');
    await expect(channel.write(run(), { verb: 'update', obj: { kind: 'ConfigMap', metadata: { name: 'x' } } as KubeObject })).rejects.toThrow('ctx.update: the object needs apiVersion and kind');
    await expect(channel.write(run(), { verb: 'create', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } as KubeObject })).rejects.toThrow('ctx.create: the object needs metadata.name');
    await expect(channel.write(run(), { verb: 'create', obj: { apiVersion: 'v1', kind: 'ConfigMap' } as unknown as KubeObject })).rejects.toThrow('ctx.create: the object needs metadata.name');
  });

  it('apply: the write record shows the server\'s answer as the new object, not the local guess', async () => {
    const { channel, run, writes } = setup('apply', { answer: async (req) => ({ ...(req.body as KubeObject), metadata: { namespace: 'ns', name: 'present', resourceVersion: '9', uid: 'server' } }) as KubeObject });
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(writes()[0].new).toMatchObject({ metadata: { resourceVersion: '9', uid: 'server' } });
    expect(writes()[0].old).toMatchObject({ metadata: { resourceVersion: '5' } });
  });

  it('an update is sent to the object, not its status', async () => {
    const { channel, run, writes } = setup('intercept');
    await channel.write(run(), { verb: 'update', obj: cm('present', { a: '2' }) });
    expect(writes()[0].request).toMatchObject({ verb: 'update', name: 'present' });
    expect(writes()[0].request.subresource).toBeUndefined();
  });
});
