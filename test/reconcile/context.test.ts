// The ReconcileContext in-process, over a fake factory and write channel: masked reads reported per object,
// argument checks in one line, finalizer helpers writing only when the list changes, events and logs.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ResourceInfo } from '../../src/reconcile/catalog.js';
import { createContext } from '../../src/reconcile/context.js';
import type { SharedInformerFactory } from '../../src/reconcile/informer-factory.js';
import { OwnWrites } from '../../src/reconcile/stale-reads.js';
import type { RunRef, WriteCall, WriteChannel } from '../../src/reconcile/writes.js';

const secrets: ResourceInfo = { name: 'secrets', group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const secret = (name: string, data: Record<string, string>, finalizers?: string[], rv = '5'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'ns', name, resourceVersion: rv, ...(finalizers ? { finalizers } : {}) }, data }) as KubeObject;

function setup(o: { masked?: boolean; synced?: boolean; readYourWrites?: boolean } = {}) {
  const idx = new Indexer();
  idx.add(secret('a', { password: '<masked 7 bytes>', user: 'dXNlcg==' }));
  idx.add(secret('b', { token: '<masked 3 bytes>' }));
  let synced = o.synced ?? true;
  const waited: AbortSignal[] = [];
  const informer = {
    hasSynced: () => synced,
    whenSynced: async (signal: AbortSignal) => {
      waited.push(signal);
      synced = true;
    },
    getIndexer: () => idx,
  };
  const factory = { informerFor: async () => ({ info: secrets, informer }) } as unknown as SharedInformerFactory;
  const calls: WriteCall[] = [];
  const writes = {
    ownWrites: new OwnWrites(),
    write: async (_run: RunRef, call: WriteCall) => {
      calls.push(call);
      return call.verb === 'event' ? undefined : ({ ...call.obj, written: true } as KubeObject);
    },
  } as unknown as WriteChannel;
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const masked: string[][] = [];
  const signal = new AbortController().signal;
  const run: RunRef = { controller: 'ctl', key: 'ns/a', writes: [] };
  const clock = new FakeClock(1000);
  const ctx = createContext(run, {
    factory,
    writes,
    tracer,
    clock,
    signal,
    readYourWrites: o.readYourWrites,
    ...(o.masked ? { onMaskedRead: (resource: string, key: string, path: string) => void masked.push([resource, key, path]) } : {}),
  });
  return { ctx, calls, records, masked, waited, signal, idx, clock, own: (writes as unknown as { ownWrites: OwnWrites }).ownWrites };
}

describe('createContext: reads', () => {
  it('reports each masked value a get or list reads, with the resource and the object it belongs to', async () => {
    const { ctx, masked } = setup({ masked: true });
    const a = await ctx.get('secrets', { namespace: 'ns', name: 'a' });
    expect(masked).toEqual([]);
    expect((a as unknown as { data: Record<string, string> }).data.user).toBe('dXNlcg==');
    expect((a as unknown as { data: Record<string, string> }).data.password).toBe('<masked 7 bytes>');
    expect(masked).toEqual([['secrets', 'ns/a', 'data.password']]);
    const all = await ctx.list('secrets', { namespace: 'ns' });
    for (const s of all) void Object.values((s as unknown as { data: Record<string, string> }).data);
    expect(masked.slice(1).sort()).toEqual([
      ['secrets', 'ns/a', 'data.password'],
      ['secrets', 'ns/b', 'data.token'],
    ]);
    expect(await ctx.get('secrets', { namespace: 'ns', name: 'missing' })).toBeUndefined();
  });

  it('leaves values plain when the replay is not masked', async () => {
    const { ctx } = setup();
    const a = await ctx.get('secrets', { namespace: 'ns', name: 'a' });
    expect(Object.getOwnPropertyDescriptor((a as unknown as { data: object }).data, 'password')).toHaveProperty('value', '<masked 7 bytes>');
    const [first] = await ctx.list('secrets', { fieldSelector: 'metadata.name=a' });
    expect(Object.getOwnPropertyDescriptor((first as unknown as { data: object }).data, 'password')).toHaveProperty('value', '<masked 7 bytes>');
  });

  it('waits for an informer that has not synced, with the run signal, before reading', async () => {
    const { ctx, waited, signal } = setup({ synced: false });
    expect((await ctx.get('secrets', { namespace: 'ns', name: 'b' }))?.metadata.name).toBe('b');
    expect(waited).toEqual([signal]);
    const synced = setup();
    await synced.ctx.list('secrets');
    expect(synced.waited).toEqual([]);
  });

  it('refuses a get without a name, in one line', async () => {
    const { ctx } = setup();
    await expect(ctx.get('secrets', undefined as never)).rejects.toThrow('ctx.get("secrets", ref): ref needs a name');
    await expect(ctx.get('secrets', { namespace: 'ns' } as never)).rejects.toThrow(TypeError);
  });
});

describe('createContext: stale reads in list', () => {
  it('records a listed object older than this controller\'s own write of it, and only that one', async () => {
    const { ctx, own, records } = setup();
    own.wrote('ctl', 'secrets', 'ns/a', '9');
    own.wrote('other', 'secrets', 'ns/b', '9');
    const items = await ctx.list('secrets', { namespace: 'ns' });
    expect(items).toHaveLength(2);
    expect(own.staleReads).toEqual([{ controller: 'ctl', key: 'ns/a', resource: 'secrets', readKey: 'ns/a', cachedRv: '5', writtenRv: '9' }]);
    expect(records.filter((r) => r.op === 'stale-read')).toHaveLength(1);
  });

  it('with --read-your-writes, waits until the cache holds the write and lists again', async () => {
    const { ctx, own, idx, clock, records } = setup({ readYourWrites: true });
    own.wrote('ctl', 'secrets', 'ns/a', '9');
    const listed = ctx.list('secrets', { namespace: 'ns' });
    await clock.advance(10);
    idx.update(secret('a', { password: 'new' }, undefined, '9'));
    await clock.advance(10);
    const items = await listed;
    expect(items.find((o) => o.metadata.name === 'a')?.metadata.resourceVersion).toBe('9');
    expect(own.staleReads).toEqual([]);
    expect(records.find((r) => r.op === 'read-your-writes')).toMatchObject({ readKey: 'ns/a', writtenRv: '9', caughtUp: true });
  });

  it('with --read-your-writes, gives up after the bound and reads what the cache has, a stale read', async () => {
    const { ctx, own, clock, records } = setup({ readYourWrites: true });
    own.wrote('ctl', 'secrets', 'ns/a', '9');
    const listed = ctx.list('secrets', { namespace: 'ns' });
    for (let i = 0; i < 1001 && records.every((r) => r.op !== 'read-your-writes'); i++) await clock.advance(10);
    await listed;
    expect(records.find((r) => r.op === 'read-your-writes')).toMatchObject({ readKey: 'ns/a', caughtUp: false, waitedMs: 10_000 });
    expect(own.staleReads).toMatchObject([{ readKey: 'ns/a', cachedRv: '5', writtenRv: '9' }]);
  });
});

describe('createContext: writes', () => {
  it('adds or removes a finalizer with one patch, keeping the resourceVersion, and writes nothing when the list already says so', async () => {
    const { ctx, calls } = setup();
    const obj = secret('a', {}, ['keep', 'other']);
    const added = await ctx.addFinalizer(obj, 'example.com/cleanup');
    expect(calls).toEqual([{ verb: 'patch', obj, patch: { metadata: { finalizers: ['keep', 'other', 'example.com/cleanup'], resourceVersion: '5' } }, options: undefined }]);
    expect(added).toHaveProperty('written', true);
    expect(await ctx.addFinalizer(obj, 'keep')).toBe(obj);
    expect(await ctx.removeFinalizer(obj, 'absent')).toBe(obj);
    expect(calls).toHaveLength(1);
    await ctx.removeFinalizer(obj, 'keep');
    expect(calls[1]).toMatchObject({ verb: 'patch', patch: { metadata: { finalizers: ['other'] } } });
    const bare = secret('c', {});
    await ctx.addFinalizer(bare, 'x');
    expect(calls[2]).toMatchObject({ verb: 'patch', patch: { metadata: { finalizers: ['x'] } } });
  });

  it('refuses a finalizer that is not a name, naming the method', async () => {
    const { ctx, calls } = setup();
    await expect(ctx.addFinalizer(secret('a', {}), '')).rejects.toThrow("ctx.addFinalizer(obj, name): name must be a finalizer such as 'example.com/cleanup'");
    await expect(ctx.removeFinalizer(secret('a', {}), 3 as never)).rejects.toThrow(/^ctx\.removeFinalizer\(obj, name\)/);
    expect(calls).toEqual([]);
  });

  it('sends each verb to the channel with its patch and options, and events with their type, reason and message', async () => {
    const { ctx, calls } = setup();
    const obj = secret('a', {});
    await ctx.create(obj);
    await ctx.update(obj);
    await ctx.patch(obj, { data: {} }, { type: 'json' });
    await ctx.updateStatus(obj);
    await ctx.patchStatus(obj, { status: {} }, { type: 'merge' });
    expect(await ctx.delete(obj)).toBeUndefined();
    await ctx.recordEvent(obj, 'Warning', 'Failed', 'it broke');
    expect(calls.map((c) => c.verb)).toEqual(['create', 'update', 'patch', 'update-status', 'patch-status', 'delete', 'event']);
    expect(calls[2]).toMatchObject({ patch: { data: {} }, options: { type: 'json' } });
    expect(calls[4]).toMatchObject({ patch: { status: {} }, options: { type: 'merge' } });
    expect(calls[6]).toEqual({ verb: 'event', obj, event: { type: 'Warning', reason: 'Failed', message: 'it broke' } });
  });

  it('logs as a trace record formatted like console.log, with the run', async () => {
    const { ctx, records } = setup();
    ctx.log('replicas %d of', 3, { x: 1 });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ time: 1000, stage: 'reconcile', op: 'log', key: 'ns/a', controller: 'ctl', message: 'replicas 3 of { x: 1 }' });
    expect(ctx.controller).toBe('ctl');
  });
});
