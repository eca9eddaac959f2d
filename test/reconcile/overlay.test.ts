// --writes overlay's local layer, in-process: what a controller reads back after its own writes (lists and watches
// through the layer), later server versions with the local edits re-applied, local deletes, and the local
// resourceVersions the server never sees.
import { describe, expect, it } from 'vitest';
import { Overlay } from '../../src/reconcile/overlay.js';
import type { KubeObject, ListOptions, WatchEvent, WatchStream } from '../../src/informer/types.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog } from './helpers.js';

const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name, ...(labels ? { labels } : {}) },
  data,
});
const names = (items: KubeObject[]) => items.map((i) => i.metadata.name);

/** The next event of a watch, or 'none' when nothing comes within 50 ms (a pending read is kept for the next call). */
const pendingReads = new WeakMap<AsyncIterator<WatchEvent>, Promise<IteratorResult<WatchEvent>>>();
async function nextEvent(it: AsyncIterator<WatchEvent>): Promise<WatchEvent | 'none'> {
  const read = pendingReads.get(it) ?? it.next();
  pendingReads.set(it, read);
  const none = new Promise<'none'>((resolve) => setTimeout(() => resolve('none'), 50));
  const r = await Promise.race([read, none]);
  if (r === 'none') return r;
  pendingReads.delete(it);
  return r.value as WatchEvent;
}

function setup() {
  const catalog = new MemoryCatalog([CONFIGMAPS, DEPLOYMENTS]);
  const server = catalog.lw(CONFIGMAPS);
  const overlay = new Overlay();
  const lw = overlay.wrap(CONFIGMAPS, server);
  return { catalog, server, overlay, lw };
}

describe('overlay: the local layer over the server', () => {
  it('a write to a resource nobody watches is only reported; local resourceVersions are told apart by resource', () => {
    const { overlay } = setup();
    const cm = configMap('a');
    expect(overlay.apply(DEPLOYMENTS, 'default/a', cm, { type: 'object', obj: cm }, undefined)).toBeUndefined();
    expect(overlay.apply(CONFIGMAPS, 'default/a', cm, { type: 'object', obj: cm }, undefined)).toBe('local-1');
    expect(overlay.apply(CONFIGMAPS, 'default/a', cm, { type: 'object', obj: cm }, cm)).toBe('local-2');
    expect(overlay.isLocal('configmaps', 'local-2')).toBe(true);
    expect(overlay.isLocal('configmaps', undefined)).toBe(false);
    expect(overlay.isLocal('configmaps', '17')).toBe(false);
    expect(overlay.isLocal('configmaps', 'local-2x')).toBe(false);
    expect(overlay.isLocal('configmaps', 'xlocal-2')).toBe(false);
    expect(overlay.isLocal('deployments.apps', 'local-2')).toBe(false);
    // A delete of an object neither cached nor created: recorded, no event.
    expect(overlay.apply(CONFIGMAPS, 'default/ghost', undefined, { type: 'delete' }, undefined)).toBeUndefined();
    expect(overlay.isIdle()).toBe(false); // the two events above wait for a reader
  });

  it('a LIST shows the local edits over the server\'s objects: patches re-applied, objects replaced (keeping the server\'s resourceVersion), deletes hidden, local creates added', async () => {
    const { server, overlay, lw } = setup();
    const patched = server.apply(configMap('patched', { a: '1' }));
    const replaced = server.apply(configMap('replaced', { a: '1' }));
    const deleted = server.apply(configMap('deleted'));
    server.apply(configMap('untouched'));
    overlay.apply(CONFIGMAPS, 'default/patched', configMap('patched', { a: '1' }, { l: 'x' }), { type: 'strategic', patch: { metadata: { labels: { l: 'x' } } } }, patched);
    overlay.apply(CONFIGMAPS, 'default/replaced', configMap('replaced', { a: '2' }), { type: 'object', obj: configMap('replaced', { a: '2' }) }, replaced);
    overlay.apply(CONFIGMAPS, 'default/deleted', undefined, { type: 'delete' }, deleted);
    overlay.apply(CONFIGMAPS, 'default/created', configMap('created'), { type: 'object', obj: configMap('created') }, undefined);
    // The server moves on: a later version of the patched object still gets the local label.
    server.apply(configMap('patched', { a: '3' }));
    const page = await lw.list({ resourceVersion: '' });
    expect(names(page.items)).toEqual(['patched', 'replaced', 'untouched', 'created']);
    const byName = new Map(page.items.map((i) => [i.metadata.name, i]));
    expect(byName.get('patched')).toMatchObject({ data: { a: '3' }, metadata: { labels: { l: 'x' } } });
    expect(byName.get('replaced')!.data).toEqual({ a: '2' });
    expect(byName.get('replaced')!.metadata.resourceVersion).toBe(server.get('default/replaced')!.metadata.resourceVersion);
    // A fresh LIST holds the local state: the local events queued before it are dropped.
    expect(overlay.isIdle()).toBe(true);
  });

  it('a patch that no longer applies to the server\'s newer version leaves the server\'s object; a later full object supersedes earlier patches', async () => {
    const { server, overlay, lw } = setup();
    const cm = server.apply(configMap('c', { a: '1' }));
    overlay.apply(CONFIGMAPS, 'default/c', configMap('c', { a: '1', b: '1' }), { type: 'json', patch: [{ op: 'test', path: '/data/a', value: '1' }, { op: 'add', path: '/data/b', value: '1' }] }, cm);
    expect((await lw.list({})).items[0].data).toEqual({ a: '1', b: '1' });
    server.apply(configMap('c', { a: '2' }));
    expect((await lw.list({})).items[0].data).toEqual({ a: '2' });
    // A full object replaces what came before it: the failing patch is not tried again, nor kept.
    overlay.apply(CONFIGMAPS, 'default/c', configMap('c', { z: '1' }), { type: 'object', obj: configMap('c', { z: '1' }) }, cm);
    overlay.apply(CONFIGMAPS, 'default/c', configMap('c', { z: '1', y: '1' }), { type: 'merge', patch: { data: { y: '1' } } }, cm);
    expect((await lw.list({})).items[0].data).toEqual({ z: '1', y: '1' });
    // A delete supersedes too: a later create starts from nothing.
    overlay.apply(CONFIGMAPS, 'default/c', undefined, { type: 'delete' }, cm);
    expect((await lw.list({})).items).toEqual([]);
    overlay.apply(CONFIGMAPS, 'default/c', configMap('c', { n: '1' }), { type: 'object', obj: configMap('c', { n: '1' }) }, undefined);
    expect((await lw.list({})).items.map((i) => i.data)).toEqual([{ n: '1' }]);
  });

  it('a paged LIST: local-only objects come with the last page, and only the first page drops the queued local events', async () => {
    const { server, overlay, lw } = setup();
    for (const n of ['a', 'b', 'c']) server.apply(configMap(n));
    overlay.apply(CONFIGMAPS, 'default/local', configMap('local'), { type: 'object', obj: configMap('local') }, undefined);
    const first = await lw.list({ limit: 2, resourceVersion: '' });
    expect(names(first.items)).toEqual(['a', 'b']);
    expect(overlay.isIdle()).toBe(true);
    overlay.apply(CONFIGMAPS, 'default/later', configMap('later'), { type: 'object', obj: configMap('later') }, undefined);
    const last = await lw.list({ limit: 2, continue: first.metadata.continue });
    expect(names(last.items)).toEqual(['c', 'local', 'later']);
    expect(overlay.isIdle()).toBe(false); // "later"'s event was queued after the list began
  });

  it('the server never sees a local resourceVersion: a LIST or watch from one resumes from the server\'s last', async () => {
    const { server, overlay, lw } = setup();
    server.apply(configMap('a'));
    const page = await lw.list({ resourceVersion: '' });
    const serverRv = page.metadata.resourceVersion;
    overlay.apply(CONFIGMAPS, 'default/b', configMap('b'), { type: 'object', obj: configMap('b') }, undefined);
    await lw.list({ resourceVersion: 'local-1' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe(serverRv);
    const w = await lw.watch({ resourceVersion: 'local-1' });
    expect(server.watchRequests.at(-1)!.resourceVersion).toBe(serverRv);
    w.close();
    // A server resourceVersion goes through as it is.
    const w2 = await lw.watch({ resourceVersion: serverRv });
    expect(server.watchRequests.at(-1)).toMatchObject({ resourceVersion: serverRv });
    w2.close();
    // A bookmark moves the server's last resourceVersion on.
    const w3 = await lw.watch({ resourceVersion: serverRv, allowWatchBookmarks: true });
    const it3 = w3[Symbol.asyncIterator]();
    server.apply(configMap('c'));
    server.bookmark();
    const seen: WatchEvent[] = [];
    for (let e = await nextEvent(it3); e !== 'none'; e = await nextEvent(it3)) {
      seen.push(e);
      if (e.type === 'BOOKMARK') break;
    }
    expect(seen.map((e) => e.type)).toContain('BOOKMARK');
    w3.close();
    await lw.list({ resourceVersion: 'local-9' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe(server.resourceVersion);
  });

  it('a watch: local events and the server\'s interleave; server versions carry the local edits; a server delete forgets them', async () => {
    const { server, overlay, lw } = setup();
    const cm = server.apply(configMap('c', { a: '1' }));
    const page = await lw.list({ resourceVersion: '' });
    const w: WatchStream = await lw.watch({ resourceVersion: page.metadata.resourceVersion } as ListOptions);
    const it = w[Symbol.asyncIterator]();
    overlay.apply(CONFIGMAPS, 'default/c', configMap('c', { a: '1' }, { own: 'y' }), { type: 'merge', patch: { metadata: { labels: { own: 'y' } } } }, cm);
    expect(await nextEvent(it)).toMatchObject({ type: 'MODIFIED', local: true, object: { metadata: { resourceVersion: 'local-1', labels: { own: 'y' } } } });
    server.apply(configMap('c', { a: '2' }));
    const modified = await nextEvent(it);
    expect(modified).toMatchObject({ type: 'MODIFIED', object: { data: { a: '2' }, metadata: { labels: { own: 'y' } } } });
    expect((modified as WatchEvent).local).toBeUndefined();
    // A local delete: the DELETED event carries the last object seen, then the server's versions are dropped.
    overlay.apply(CONFIGMAPS, 'default/c', undefined, { type: 'delete' }, cm);
    expect(await nextEvent(it)).toMatchObject({ type: 'DELETED', local: true, object: { data: { a: '2' }, metadata: { resourceVersion: 'local-2' } } });
    server.apply(configMap('c', { a: '3' }));
    expect(await nextEvent(it)).toBe('none');
    // The server deletes it too, then creates it again: the local edits are forgotten.
    server.remove('default/c');
    expect(await nextEvent(it)).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'c' } } });
    server.apply(configMap('c', { a: '4' }));
    expect(await nextEvent(it)).toMatchObject({ type: 'ADDED', object: { data: { a: '4' } } });
    w.close();
    expect(await it.next()).toMatchObject({ done: true });
  });

  it('a local delete of an object the layer never showed uses the cached object the write replaced', async () => {
    const { overlay, lw } = setup();
    const stream = await lw.watch({ resourceVersion: '0' });
    const it = stream[Symbol.asyncIterator]();
    const cached = { ...configMap('gone', { from: 'cache' }), metadata: { namespace: 'default', name: 'gone', resourceVersion: '5' } };
    overlay.apply(CONFIGMAPS, 'default/gone', undefined, { type: 'delete' }, cached);
    expect(await nextEvent(it)).toEqual({ type: 'DELETED', local: true, object: { ...cached, metadata: { ...cached.metadata, resourceVersion: 'local-1' } } });
    stream.close();
  });

  it('a plain watch delivers the local events queued before it; closing it ends it even with local events waiting', async () => {
    const { server, overlay, lw } = setup();
    expect(overlay.isIdle()).toBe(true);
    // Before any LIST, a local resourceVersion resumes from nothing: the server is asked for "".
    await lw.list({ resourceVersion: 'local-3' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe('');
    overlay.apply(CONFIGMAPS, 'default/q', configMap('q'), { type: 'object', obj: configMap('q') }, undefined);
    const w = await lw.watch({ resourceVersion: server.resourceVersion });
    const it = w[Symbol.asyncIterator]();
    expect(await nextEvent(it)).toMatchObject({ type: 'ADDED', local: true, object: { metadata: { name: 'q', resourceVersion: 'local-1' } } });
    overlay.apply(CONFIGMAPS, 'default/r', configMap('r'), { type: 'object', obj: configMap('r') }, undefined);
    w.close();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it('the server ending its watch ends the layer\'s', async () => {
    const { server, lw } = setup();
    const w = await lw.watch({ resourceVersion: server.resourceVersion });
    const it = w[Symbol.asyncIterator]();
    const read = it.next();
    server.closeWatches();
    expect(await read).toEqual({ done: true, value: undefined });
  });

  it('the server\'s last resourceVersion follows its bookmarks and events; one the caller gives that is not local goes through', async () => {
    const { server, lw } = setup();
    const w = await lw.watch({ resourceVersion: server.resourceVersion, allowWatchBookmarks: true });
    const it = w[Symbol.asyncIterator]();
    server.emit({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '900' } } });
    expect(await nextEvent(it)).toMatchObject({ type: 'BOOKMARK' });
    await lw.list({ resourceVersion: 'local-1' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe('900');
    server.emit({ type: 'ADDED', object: { ...configMap('e'), metadata: { namespace: 'default', name: 'e', resourceVersion: '950' } } });
    expect(await nextEvent(it)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'e' } } });
    await lw.list({ resourceVersion: 'local-1' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe('950');
    await lw.list({ resourceVersion: '0' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe('0');
    w.close();
  });

  it('an ERROR event (a Status, no resourceVersion of its own) leaves the server\'s last resourceVersion as it was', async () => {
    const { server, lw } = setup();
    const w = await lw.watch({ resourceVersion: server.resourceVersion, allowWatchBookmarks: true });
    const it = w[Symbol.asyncIterator]();
    server.emit({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '900' } } });
    expect(await nextEvent(it)).toMatchObject({ type: 'BOOKMARK' });
    const expired = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' } as unknown as KubeObject;
    server.emit({ type: 'ERROR', object: expired });
    expect(await nextEvent(it)).toEqual({ type: 'ERROR', object: expired });
    // The relist after it, from the informer's last (local) version, resumes from the server's last.
    await lw.list({ resourceVersion: 'local-1' });
    expect(server.listRequests.at(-1)!.resourceVersion).toBe('900');
    w.close();
  });

  it('a watch-list with a progress bookmark among its initial events: local-only objects come once, just before the end bookmark', async () => {
    const overlay = new Overlay();
    const cm = (name: string, rv: string) => ({ ...configMap(name), metadata: { namespace: 'default', name, resourceVersion: rv } });
    const script: WatchEvent[] = [
      { type: 'ADDED', object: cm('a', '10') },
      // A bookmark that is not the end of the initial events (no annotation at all).
      { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '11' } } },
      { type: 'ADDED', object: cm('replaced', '12') },
      { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } } } },
    ];
    const server = {
      list: async () => ({ metadata: { resourceVersion: '12' }, items: [] }),
      watch: async (): Promise<WatchStream> => {
        let closed!: () => void;
        const done = new Promise<void>((resolve) => (closed = resolve));
        return {
          close: () => closed(),
          async *[Symbol.asyncIterator]() {
            yield* script;
            await done;
          },
        };
      },
    };
    const lw = overlay.wrap(CONFIGMAPS, server);
    const created = configMap('local-only', { a: '1' });
    overlay.apply(CONFIGMAPS, 'default/local-only', created, { type: 'object', obj: created }, undefined);
    const replaced = configMap('replaced', { mine: 'yes' });
    overlay.apply(CONFIGMAPS, 'default/replaced', replaced, { type: 'object', obj: replaced }, cm('replaced', '12'));
    const w = await lw.watch({ resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true });
    const it = w[Symbol.asyncIterator]();
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const e = await nextEvent(it);
      if (e === 'none') break;
      seen.push(`${e.type} ${e.object.metadata.name ?? e.object.metadata.resourceVersion}${(e.object.data as Record<string, string> | undefined)?.mine ? ' (local)' : ''}`);
    }
    expect(seen).toEqual(['ADDED a', 'BOOKMARK 11', 'ADDED replaced (local)', 'ADDED local-only', 'BOOKMARK 12']);
    expect(await nextEvent(it)).toBe('none');
    w.close();
  });

  it('a watch-list: an object the server has and the layer replaced comes once; a patched object the server deleted meanwhile does not come back', async () => {
    const { server, overlay, lw } = setup();
    const kept = server.apply(configMap('kept', { a: '1' }));
    const gone = server.apply(configMap('gone', { a: '1' }));
    overlay.apply(CONFIGMAPS, 'default/kept', configMap('kept', { a: 'local' }), { type: 'object', obj: configMap('kept', { a: 'local' }) }, kept);
    overlay.apply(CONFIGMAPS, 'default/gone', configMap('gone', { a: '1' }, { l: 'x' }), { type: 'merge', patch: { metadata: { labels: { l: 'x' } } } }, gone);
    server.remove('default/gone'); // no watch open: the layer never hears of it
    const stream = await lw.watch({ resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: 'NotOlderThan' });
    const events: WatchEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      if (e.type === 'BOOKMARK') break;
    }
    expect(events.map((e) => `${e.type} ${e.object?.metadata?.name ?? ''}`.trim())).toEqual(['ADDED kept', 'BOOKMARK']);
    expect(events[0].object.data).toEqual({ a: 'local' });
    stream.close();
    // A LIST answers the same.
    const page = await lw.list({ resourceVersion: '' });
    expect(page.items.map((i) => [i.metadata.name, i.data])).toEqual([['kept', { a: 'local' }]]);
  });

  it('a local delete carries the layer\'s last version of the object: the local update just before it, not an older cached copy; after it, the cached copy again', async () => {
    const { server, overlay, lw } = setup();
    const cm = server.apply(configMap('c', { a: '1' }));
    await lw.list({ resourceVersion: '' });
    overlay.apply(CONFIGMAPS, 'default/c', configMap('c', { a: 'patched' }), { type: 'merge', patch: { data: { a: 'patched' } } }, cm);
    overlay.apply(CONFIGMAPS, 'default/c', undefined, { type: 'delete' }, cm);
    const w = await lw.watch({ resourceVersion: server.resourceVersion });
    const it = w[Symbol.asyncIterator]();
    expect(await nextEvent(it)).toMatchObject({ type: 'MODIFIED', object: { data: { a: 'patched' } } });
    expect(await nextEvent(it)).toMatchObject({ type: 'DELETED', object: { data: { a: 'patched' } } });
    // Once deleted the layer forgets its version: a later delete carries the copy the write replaced.
    overlay.apply(CONFIGMAPS, 'default/c', undefined, { type: 'delete' }, configMap('c', { a: 'cached' }));
    expect(await nextEvent(it)).toMatchObject({ type: 'DELETED', object: { data: { a: 'cached' } } });
    w.close();
  });
});
