// A resource watched across namespaces but kept to a few of them (a controller's cache restricted to
// `namespaces: [a, b]`): one LIST and one WATCH for all, objects of other namespaces dropped here.
// controller-runtime opens one watch per namespace instead; one stream keeps a single resourceVersion.
import type { ListerWatcher, ListOptions, ListPage, WatchEvent, WatchStream } from '../../informer/types.js';

export class NamespacesListerWatcher implements ListerWatcher {
  private readonly keep: Set<string>;

  constructor(
    private readonly inner: ListerWatcher,
    namespaces: readonly string[],
  ) {
    this.keep = new Set(namespaces);
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    const page = await this.inner.list(options, signal);
    return { ...page, items: page.items.filter((o) => this.keep.has(o.metadata?.namespace ?? '')) };
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const inner = await this.inner.watch(options, signal);
    const kept = (e: WatchEvent) => e.type === 'BOOKMARK' || e.type === 'ERROR' || this.keep.has(e.object?.metadata?.namespace ?? '');
    return {
      close: () => inner.close(),
      async *[Symbol.asyncIterator]() {
        for await (const e of inner) if (kept(e)) yield e;
      },
    };
  }
}
