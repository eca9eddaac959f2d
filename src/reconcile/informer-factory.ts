// One informer per resource, shared by every controller of the run (kube-controller-manager's shared
// informer factory): one sync (watch-list, or LIST) and WATCH per kind whatever the number of controllers, started
// on first use — also while running, when a reconciler reads a kind nobody watched yet.
import type { Clock } from '../informer/clock.js';
import { SharedIndexInformer } from '../informer/shared-informer.js';
import { ResourceTracer, type Tracer } from '../informer/trace.js';
import type { ListerWatcher } from '../informer/types.js';
import type { CacheScope, ResourceCatalog, ResourceInfo } from './catalog.js';

export interface InformerFactoryOptions {
  catalog: ResourceCatalog;
  tracer: Tracer;
  clock?: Clock;
  fifo?: 'real' | 'delta';
  resyncPeriodMs?: number;
  /** Put old/new objects on handler records (for --diff). */
  traceObjects?: boolean;
  random?: () => number;
  /** Wraps each resource's ListerWatcher (the overlay of local writes, event limits, recording). */
  wrap?: (info: ResourceInfo, lw: ListerWatcher, role: 'primary' | 'secondary') => ListerWatcher;
  /** What the cache holds of a resource (the modules' `cache` entries, primaries' selectors); default: all of it. */
  scopeOf?: (info: ResourceInfo) => CacheScope;
  /**
   * Sync each informer with a watch-list (sendInitialEvents), falling back to LIST+WATCH when the server refuses it,
   * as client-go 1.35's WatchListClient does by default; with the bound and --fallback of `kwatch events`.
   */
  watchList?: { initialEventsEndTimeoutMs?: number; fallbackWithoutInitialEventsEnd?: boolean };
  /** An informer gave up (e.g. 403 on its first LIST): the run cannot go on. */
  onFatal?: (err: unknown, info: ResourceInfo) => void;
}

export interface InformerEntry {
  info: ResourceInfo;
  informer: SharedIndexInformer;
}

export class SharedInformerFactory {
  /** By group/resource: one informer per resource, whatever name it was asked for by. */
  private readonly entries = new Map<string, InformerEntry>();
  private readonly runs: Promise<void>[] = [];
  private signal?: AbortSignal;

  constructor(private readonly o: InformerFactoryOptions) {}

  /** The informer for a resource (any kubectl spelling), created on first use and started if the factory runs. */
  async informerFor(resource: string | ResourceInfo): Promise<InformerEntry> {
    const info = typeof resource === 'string' ? await this.o.catalog.resolve(resource) : resource;
    // Created synchronously after the lookup, so two concurrent callers share one informer.
    return this.entries.get(idOf(info)) ?? this.create(info);
  }

  /** The informer of a resource if one exists already (writes use it to diff against the cache). */
  existing(info: ResourceInfo): InformerEntry | undefined {
    return this.entries.get(idOf(info));
  }

  /** Starts every informer, and any created later, until the signal aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const e of this.entries.values()) this.run(e);
  }

  /** Resolves when every informer started so far has stopped. */
  async stopped(): Promise<void> {
    await Promise.all(this.runs);
  }

  hasSynced(): boolean {
    for (const e of this.entries.values()) if (!e.informer.hasSynced()) return false;
    return true;
  }

  /** Polled between macrotasks while a run drains: no array is built. */
  isIdle(): boolean {
    for (const e of this.entries.values()) if (!e.informer.isIdle()) return false;
    return true;
  }

  get informers(): InformerEntry[] {
    return [...this.entries.values()];
  }

  private create(info: ResourceInfo): InformerEntry {
    const scope = this.o.scopeOf?.(info) ?? { primary: false };
    let lw = this.o.catalog.listerWatcher(info, scope);
    if (this.o.wrap) lw = this.o.wrap(info, lw, scope.primary ? 'primary' : 'secondary');
    const informer = new SharedIndexInformer({
      listerWatcher: lw,
      name: info.name,
      expectedKind: info.kind,
      fifo: this.o.fifo ?? 'real',
      resyncPeriodMs: this.o.resyncPeriodMs,
      tracer: new ResourceTracer(this.o.tracer, info.name),
      clock: this.o.clock,
      traceObjects: this.o.traceObjects,
      random: this.o.random,
      useWatchList: this.o.watchList !== undefined,
      initialEventsEndTimeoutMs: this.o.watchList?.initialEventsEndTimeoutMs,
      fallbackWithoutInitialEventsEnd: this.o.watchList?.fallbackWithoutInitialEventsEnd,
    });
    const entry = { info, informer };
    this.entries.set(idOf(info), entry);
    if (this.signal) this.run(entry);
    return entry;
  }

  private run(entry: InformerEntry): void {
    const signal = this.signal!;
    this.runs.push(
      entry.informer.run(signal).catch((err: unknown) => {
        if (!signal.aborted) this.o.onFatal?.(err, entry.info);
      }),
    );
  }
}

export function idOf(info: ResourceInfo): string {
  return `${info.group}/${info.resource}`;
}
