// --writes overlay: the reconcilers' writes applied to a local layer over the server's objects. Each
// write becomes a watch event marked `local` with a local resourceVersion, flowing through the whole
// pipeline like a server event, so a reconciler sees its own writes; later server versions of an object
// get the local edits re-applied, as if the write had been stored. Nothing is sent.
import type { KubeObject, ListOptions, ListPage, ListerWatcher, WatchEvent, WatchStream } from '../informer/types.js';
import { metaNamespaceKey } from '../informer/types.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../informer/reflector-state.js';
import type { ResourceInfo } from './catalog.js';
import { applyPatch, type LocalPatchType } from './patch.js';

/** One local write to re-apply over later server versions of the object. */
export type OverlayEdit = { type: 'object'; obj: KubeObject } | { type: LocalPatchType; patch: unknown } | { type: 'delete' };

const LOCAL_RV = /^local-\d+$/;

export class Overlay {
  private readonly layers = new Map<string, ResourceOverlay>();
  private seq = 0;

  /** The ListerWatcher the informer of `info` reads through. */
  wrap(info: ResourceInfo, lw: ListerWatcher): ListerWatcher {
    const layer = new ResourceOverlay(lw);
    this.layers.set(info.name, layer);
    return layer;
  }

  /**
   * Applies a write locally: `result` is the object as the write would leave it (undefined for a delete),
   * `previous` the cached object it replaces (undefined for a create).
   * Returns the local resourceVersion given to it, or undefined when nobody watches the resource (the
   * write is then only reported).
   */
  apply(info: ResourceInfo, key: string, result: KubeObject | undefined, edit: OverlayEdit, previous: KubeObject | undefined): string | undefined {
    const layer = this.layers.get(info.name);
    if (!layer) return undefined;
    layer.record(key, edit);
    if (result === undefined && previous === undefined) return undefined;
    const rv = `local-${++this.seq}`;
    if (result === undefined) {
      const last = layer.lastKnown(key) ?? previous!;
      layer.push({ type: 'DELETED', object: { ...last, metadata: { ...last.metadata, resourceVersion: rv } }, local: true });
    } else {
      const object = { ...result, metadata: { ...result.metadata, resourceVersion: rv } };
      layer.push({ type: previous ? 'MODIFIED' : 'ADDED', object, local: true });
    }
    return rv;
  }

  /** No local event waits to be read by an informer. */
  isIdle(): boolean {
    for (const layer of this.layers.values()) if (layer.pendingCount > 0) return false;
    return true;
  }

  isLocal(resource: string, rv: string | undefined): boolean {
    return rv !== undefined && LOCAL_RV.test(rv) && this.layers.has(resource);
  }
}

class ResourceOverlay implements ListerWatcher {
  private readonly edits = new Map<string, OverlayEdit[]>();
  private readonly known = new Map<string, KubeObject>();
  private lastServerRv = '';
  private pending: WatchEvent[] = [];
  private wake?: () => void;

  constructor(private readonly inner: ListerWatcher) {}

  record(key: string, edit: OverlayEdit): void {
    const list = this.edits.get(key) ?? [];
    // A full object or a delete supersedes what came before it.
    if (edit.type === 'object' || edit.type === 'delete') list.length = 0;
    list.push(edit);
    this.edits.set(key, list);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  lastKnown(key: string): KubeObject | undefined {
    return this.known.get(key);
  }

  push(event: WatchEvent): void {
    const key = metaNamespaceKey(event.object);
    if (event.type === 'DELETED') this.known.delete(key);
    else this.known.set(key, event.object);
    this.pending.push(event);
    this.wake?.();
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    const page = await this.inner.list(this.serverOptions(options), signal);
    if (page.metadata.resourceVersion) this.lastServerRv = page.metadata.resourceVersion;
    // A fresh list already holds the local state: events queued before it would repeat it.
    if (!options.continue) this.pending = [];
    const items: KubeObject[] = [];
    const seen = new Set<string>();
    for (const item of page.items) {
      const key = metaNamespaceKey(item);
      seen.add(key);
      const shown = this.overlaid(key, item);
      if (shown) items.push(shown);
    }
    if (!page.metadata.continue) {
      for (const [key, edits] of this.edits) {
        const last = edits.at(-1);
        if (!seen.has(key) && last?.type === 'object') items.push(last.obj);
      }
    }
    for (const item of items) this.known.set(metaNamespaceKey(item), item);
    return { ...page, items };
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const server = await this.inner.watch(this.serverOptions(options), signal);
    // A watch-list's initial events are a fresh list, as list() above: they hold the local state, so the events
    // queued before would repeat it, and local objects the server never had go in before the end bookmark.
    const initial = options.sendInitialEvents === true ? new Set<string>() : undefined;
    if (initial) this.pending = [];
    const state = { closed: false, initial };
    return {
      close: () => {
        state.closed = true;
        server.close();
        this.wake?.();
      },
      [Symbol.asyncIterator]: () => this.merge(server, state),
    };
  }

  /** The server's events (local edits re-applied) interleaved with local ones, until closed. */
  private async *merge(server: WatchStream, state: { closed: boolean; initial?: Set<string> }): AsyncGenerator<WatchEvent> {
    const iterator = server[Symbol.asyncIterator]();
    let next: Promise<IteratorResult<WatchEvent>> | undefined;
    while (!state.closed) {
      // Local events wait until a watch-list's initial events are over, as they would after a list.
      if (this.pending.length > 0 && !state.initial) {
        yield this.pending.shift()!;
        continue;
      }
      next ??= iterator.next();
      const local = new Promise<'local'>((resolve) => (this.wake = () => resolve('local')));
      const won = await Promise.race([next, local]);
      this.wake = undefined;
      if (won === 'local') {
        // A write's event reaches the informer a turn of the event loop later, as a server's would:
        // a reconciler that keeps re-triggering itself must not starve timers, signals and output.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      next = undefined;
      if (won.done) return;
      const event = won.value;
      if (state.initial) {
        if (event.type === 'BOOKMARK' && event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
          yield* this.localOnly(state.initial);
          state.initial = undefined;
        } else if (event.type !== 'BOOKMARK' && event.type !== 'ERROR') state.initial.add(metaNamespaceKey(event.object));
      }
      const shown = this.fromServer(event);
      if (shown) yield shown;
    }
  }

  /** ADDED events for the objects only the local layer holds (created locally, not among `seen`). */
  private *localOnly(seen: ReadonlySet<string>): Generator<WatchEvent> {
    for (const [key, edits] of this.edits) {
      const last = edits.at(-1);
      if (seen.has(key) || last?.type !== 'object') continue;
      this.known.set(key, last.obj);
      yield { type: 'ADDED', object: last.obj };
    }
  }

  /** A server event with the local edits of its object applied (or dropped while locally deleted). */
  private fromServer(event: WatchEvent): WatchEvent | undefined {
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') {
      if (event.type === 'BOOKMARK' && event.object.metadata?.resourceVersion) this.lastServerRv = event.object.metadata.resourceVersion;
      return event;
    }
    if (event.object.metadata?.resourceVersion) this.lastServerRv = event.object.metadata.resourceVersion;
    const key = metaNamespaceKey(event.object);
    if (event.type === 'DELETED') {
      this.edits.delete(key);
      this.known.delete(key);
      return event;
    }
    const shown = this.overlaid(key, event.object);
    if (!shown) return undefined;
    this.known.set(key, shown);
    return shown === event.object ? event : { ...event, object: shown };
  }

  private overlaid(key: string, obj: KubeObject): KubeObject | undefined {
    const edits = this.edits.get(key);
    if (!edits || edits.length === 0) return obj;
    let out: KubeObject | undefined = obj;
    for (const e of edits) {
      if (e.type === 'delete') out = undefined;
      else if (e.type === 'object') out = { ...e.obj, metadata: { ...e.obj.metadata, resourceVersion: obj.metadata.resourceVersion } };
      else if (out) {
        try {
          out = applyPatch(out, e.patch, e.type);
        } catch {
          // The patch no longer applies to the server's newer version: the server's object wins.
        }
      }
    }
    return out;
  }

  /** The server never sees local resourceVersions: resume from the last one it sent. */
  private serverOptions(options: ListOptions): ListOptions {
    if (options.resourceVersion && LOCAL_RV.test(options.resourceVersion)) return { ...options, resourceVersion: this.lastServerRv };
    return options;
  }
}
