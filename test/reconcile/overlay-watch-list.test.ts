// --writes overlay under a watch-list sync (reconcile's default, client-go 1.35's): a watch-list's initial events are
// a fresh list, so the local layer must answer it as it answers a LIST — objects only the local layer holds go in
// before the initial-events-end bookmark (else the reflector's replace deletes them from the cache), and local events
// queued before it are not repeated after it.
import { describe, expect, it } from 'vitest';
import { Overlay } from '../../src/reconcile/overlay.js';
import type { KubeObject, ListOptions, WatchEvent, WatchStream } from '../../src/informer/types.js';
import { CONFIGMAPS, MemoryCatalog } from './helpers.js';

const WATCH_LIST: ListOptions = { resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: 'NotOlderThan' };
const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data });

/** Reads events until the initial-events-end bookmark (included). */
async function untilInitialEventsEnd(stream: WatchStream): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of stream) {
    out.push(e);
    if (e.type === 'BOOKMARK' && e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') break;
  }
  return out;
}
const shown = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.type === 'BOOKMARK' ? '' : e.object.metadata.name}`.trim());

describe('overlay: a watch-list answered with the local layer', () => {
  it('a locally created object is among the initial events, before the end bookmark, even after its local event was read', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    catalog.lw(CONFIGMAPS).apply(configMap('on-server'));
    const overlay = new Overlay();
    const lw = overlay.wrap(CONFIGMAPS, catalog.lw(CONFIGMAPS));
    // The first sync, then a local create read by that watch (as the informer reads it).
    const first = await lw.watch(WATCH_LIST);
    expect(shown(await untilInitialEventsEnd(first))).toEqual(['ADDED on-server', 'BOOKMARK']);
    const created = configMap('local-only', { a: '1' });
    overlay.apply(CONFIGMAPS, 'default/local-only', created, { type: 'object', obj: created }, undefined);
    const it1 = first[Symbol.asyncIterator]();
    expect((await it1.next()).value).toMatchObject({ type: 'ADDED', local: true, object: { metadata: { name: 'local-only' } } });
    first.close();

    // A later watch-list (a relist after a 410, say) must hold it, or the informer's replace would delete it.
    const again = await lw.watch(WATCH_LIST);
    expect(shown(await untilInitialEventsEnd(again))).toEqual(['ADDED on-server', 'ADDED local-only', 'BOOKMARK']);
    again.close();
  });

  it('local events queued before a watch-list are not repeated after it; later ones follow its end bookmark', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    const overlay = new Overlay();
    const lw = overlay.wrap(CONFIGMAPS, catalog.lw(CONFIGMAPS));
    const queued = configMap('queued');
    overlay.apply(CONFIGMAPS, 'default/queued', queued, { type: 'object', obj: queued }, undefined);
    const stream = await lw.watch(WATCH_LIST);
    const it = stream[Symbol.asyncIterator]();
    const initial: WatchEvent[] = [];
    for (;;) {
      const e = (await it.next()).value as WatchEvent;
      initial.push(e);
      if (e.type === 'BOOKMARK') break;
    }
    expect(shown(initial)).toEqual(['ADDED queued', 'BOOKMARK']);
    const later = configMap('later');
    overlay.apply(CONFIGMAPS, 'default/later', later, { type: 'object', obj: later }, undefined);
    expect((await it.next()).value).toMatchObject({ type: 'ADDED', local: true, object: { metadata: { name: 'later' } } });
    expect(overlay.isIdle()).toBe(true);
    stream.close();
  });
});
