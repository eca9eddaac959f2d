// Stale reads in module mode: a run that reads a key from a cache older than its controller's own last write of it
// is a stale-read finding; --read-your-writes makes that read wait until the informer has the write.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/informer/types.js';
import { applyPatch } from '../../src/reconcile/patch.js';
import { OwnWrites } from '../../src/reconcile/stale-reads.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import type { ObjectWriter, WriteRequest } from '../../src/reconcile/writer.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

/** A server that answers a write at once but whose watch sends the change only when the test releases it. */
function slowWatchServer() {
  const catalog = new MemoryCatalog([DEPLOYMENTS]);
  const server = catalog.lw(DEPLOYMENTS);
  server.apply(deployment('default', 'web'));
  const held: KubeObject[] = [];
  const writer: ObjectWriter = {
    async write(req: WriteRequest) {
      const cur = server.get(`${req.namespace}/${req.name}`)!;
      const next = applyPatch(cur, req.body, 'merge');
      // The revision the server will give it once released (nothing else is written meanwhile).
      const answer = { ...next, metadata: { ...next.metadata, resourceVersion: String(Number(server.resourceVersion) + 1) } };
      held.push(next);
      return answer;
    },
  };
  return { catalog, server, writer, release: () => held.splice(0).map((o) => server.apply(o)) };
}

const definition = (seen: (string | undefined)[]): ControllerDefinition => ({
  for: 'deployments.apps',
  async reconcile(req, ctx) {
    const d = await ctx.get('deployments.apps', req);
    seen.push(d?.metadata.resourceVersion);
    if (seen.length === 1) {
      await ctx.patch(d!, { metadata: { annotations: { seen: 'yes' } } });
      return { requeueAfter: 20 };
    }
    return undefined;
  },
});

describe('stale reads (module mode)', () => {
  it('a read older than the controller\'s own write of the key is a stale-read record and finding', async () => {
    const s = slowWatchServer();
    const seen: (string | undefined)[] = [];
    const h = await startSession({ catalog: s.catalog, mode: 'apply', writer: s.writer, controllers: [{ name: 'c', definition: definition(seen) }] });
    await eventually(() => seen.length === 2, 'the requeued run');
    expect(seen).toEqual(['1001', '1001']);
    expect(h.session.writes.ownWrites.staleReads).toEqual([{ controller: 'c', key: 'default/web', resource: 'deployments.apps', readKey: 'default/web', cachedRv: '1001', writtenRv: '1002' }]);
    const rec = h.records.find((r) => r.op === 'stale-read');
    expect(rec).toMatchObject({ stage: 'reconcile', key: 'default/web', controller: 'c', readKey: 'default/web', cachedRv: '1001', writtenRv: '1002' });
    s.release();
    await h.stop();
  });

  it('--read-your-writes: the read waits until the informer has the write, and the trace shows the wait', async () => {
    const s = slowWatchServer();
    const seen: (string | undefined)[] = [];
    const h = await startSession({ catalog: s.catalog, mode: 'apply', writer: s.writer, readYourWrites: true, controllers: [{ name: 'c', definition: definition(seen) }] });
    await eventually(() => h.records.filter((r) => r.op === 'start').length === 2, 'the requeued run to start');
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(['1001']);
    expect(s.release().map((o) => o.metadata.resourceVersion)).toEqual(['1002']);
    // The wait polls the cache on the real clock: give it real time (bounded, generously).
    for (let i = 0; i < 500 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    // (the released change then triggers a run of its own, which reads 1002 as well)
    expect(seen.slice(0, 2)).toEqual(['1001', '1002']);
    const wait = h.records.find((r) => r.op === 'read-your-writes');
    expect(wait).toMatchObject({ stage: 'reconcile', key: 'default/web', controller: 'c', readKey: 'default/web', writtenRv: '1002', caughtUp: true });
    expect(wait!.waitedMs as number).toBeGreaterThanOrEqual(40);
    expect(h.records.some((r) => r.op === 'stale-read')).toBe(false);
    expect(h.session.writes.ownWrites.staleReads).toEqual([]);
    await h.stop();
  });
});

describe('OwnWrites: the controller\'s own last write of each key', () => {
  const cached = (resourceVersion?: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'a', ...(resourceVersion === undefined ? {} : { resourceVersion }) } });

  it('keeps the newest revision written, per controller, resource and key', () => {
    const own = new OwnWrites();
    expect(own.lastRv('c', 'configmaps', 'default/a')).toBeUndefined();
    own.wrote('c', 'configmaps', 'default/a', '10');
    own.wrote('c', 'configmaps', 'default/a', '9'); // an older answer arriving late does not move it back
    expect(own.lastRv('c', 'configmaps', 'default/a')).toBe('10');
    own.wrote('c', 'configmaps', 'default/a', '10');
    own.wrote('c', 'configmaps', 'default/a', '100'); // ordered as numbers, not as text
    expect(own.lastRv('c', 'configmaps', 'default/a')).toBe('100');
    // Another controller, resource or key is its own entry.
    expect(own.lastRv('d', 'configmaps', 'default/a')).toBeUndefined();
    expect(own.lastRv('c', 'secrets', 'default/a')).toBeUndefined();
    expect(own.lastRv('c', 'configmaps', 'default/b')).toBeUndefined();
    // A revision that is not an etcd one (a recording's) gives no order: the first one stays.
    own.wrote('c', 'configmaps', 'default/b', 'abc');
    own.wrote('c', 'configmaps', 'default/b', 'xyz');
    expect(own.lastRv('c', 'configmaps', 'default/b')).toBe('abc');
    expect(own.staleReads).toEqual([]);
  });

  it('a cached object older than the last write is stale; as new, newer, absent or unordered is not', () => {
    const own = new OwnWrites();
    expect(own.staleBy('c', 'configmaps', 'default/a', cached('5'))).toBeUndefined();
    own.wrote('c', 'configmaps', 'default/a', '10');
    expect(own.staleBy('c', 'configmaps', 'default/a', cached('9'))).toEqual({ cachedRv: '9', writtenRv: '10' });
    expect(own.staleBy('c', 'configmaps', 'default/a', cached('10'))).toBeUndefined();
    expect(own.staleBy('c', 'configmaps', 'default/a', cached('11'))).toBeUndefined();
    expect(own.staleBy('c', 'configmaps', 'default/a', undefined)).toBeUndefined();
    expect(own.staleBy('c', 'configmaps', 'default/a', cached('x1'))).toBeUndefined();
    // A cached copy without a resourceVersion counts as revision 0: older than any write.
    expect(own.staleBy('c', 'configmaps', 'default/a', cached())).toEqual({ cachedRv: '0', writtenRv: '10' });
    // Only this controller's writes count.
    expect(own.staleBy('d', 'configmaps', 'default/a', cached('9'))).toBeUndefined();
  });
});
