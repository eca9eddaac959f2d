// One run of kwatch reconcile: the user's controllers over one shared informer factory, one write
// channel and one loop detector — the assembly of trigger, scheduler, runner and context.
import type { Clock } from '../informer/clock.js';
import { realClock } from '../informer/clock.js';
import type { Tracer } from '../informer/trace.js';
import { metaNamespaceKey, type ListerWatcher } from '../informer/types.js';
import type { RateLimiter } from '../informer/workqueue/rate-limiters.js';
import { CatalogError, type CacheScope, type ResourceCatalog, type ResourceInfo } from './catalog.js';
import { SharedInformerFactory, idOf, type InformerFactoryOptions } from './informer-factory.js';
import { LoopDetector } from './loop-detector.js';
import { Overlay } from './overlay.js';
import { RunReport } from './report.js';
import { ReconcileRunner } from './runner.js';
import type { CacheEntry, ControllerDefinition } from './types.js';
import { WriteChannel, type WriteMode } from './writes.js';
import { DEFAULT_WRITE_LIMITS, WriteLimiter, type WriteLimits } from './write-limiter.js';
import type { ObjectWriter } from './writer.js';
import type { WriteFaults } from '../faults/write-faults.js';

export interface SessionController {
  name: string;
  definition: ControllerDefinition;
  /** The module it came from, when it came from one. */
  file?: string;
}

export interface SessionOptions {
  controllers: SessionController[];
  catalog: ResourceCatalog;
  mode: WriteMode;
  /** For server-dry-run and apply. */
  writer?: ObjectWriter;
  tracer: Tracer;
  clock?: Clock;
  random?: () => number;
  concurrency?: number;
  debounceMs?: number;
  loopThreshold?: number;
  resyncPeriodMs?: number;
  /** --queue: controller-runtime 0.23's priority queue (default) or client-go's FIFO workqueue. */
  queue?: 'priority' | 'fifo';
  /** --starved-after in ms: with the priority queue, a ready key passed over this long is `starved`. */
  starvedAfterMs?: number;
  /** --read-your-writes: a run's cache reads wait until the informer holds the controller's own earlier writes. */
  readYourWrites?: boolean;
  fifo?: 'real' | 'delta';
  /** The informers sync with a watch-list (client-go 1.35's default); undefined: LIST then WATCH. */
  watchList?: InformerFactoryOptions['watchList'];
  traceObjects?: boolean;
  fieldManager?: string;
  maxReasonsPerKey?: number;
  /** A rate limiter per controller (tests); default client-go's DefaultControllerRateLimiter. */
  rateLimiter?: () => RateLimiter<string>;
  /** --qps/--burst/--max-writes for sent writes (default controller-runtime's 20/30, and 10,000). */
  writeLimits?: WriteLimits;
  /** --reconcile-timeout in ms (off when undefined). */
  reconcileTimeoutMs?: number;
  /** Replaying a masked recording: a reconciler read a value the recording masked. */
  onMaskedRead?: (controller: string, resource: string, key: string, path: string) => void;
  /** --inject's write faults (the watch faults act in `wrap`). */
  writeFaults?: WriteFaults;
  /** Wraps each resource's ListerWatcher under the overlay (first contact, event limits, recording, watch faults). */
  wrap?: (info: ResourceInfo, lw: ListerWatcher, role: 'primary' | 'secondary') => ListerWatcher;
}

export class ReconcileSession {
  readonly factory: SharedInformerFactory;
  readonly report = new RunReport();
  readonly loops: LoopDetector;
  readonly writes: WriteChannel;
  readonly runners: ReconcileRunner[] = [];
  private readonly overlay?: Overlay;
  private fatal?: unknown;
  /** By resource id: what the cache holds of it (filled by setup, before any informer exists). */
  private readonly scopes = new Map<string, CacheScope>();
  private readonly stop = new AbortController();
  /** Aborts sent writes still waiting for their answer: only a forced stop, so a run that stops lets them finish. */
  private readonly kill = new AbortController();

  constructor(private readonly o: SessionOptions) {
    const clock = o.clock ?? realClock;
    this.overlay = o.mode === 'overlay' ? new Overlay() : undefined;
    const overlay = this.overlay;
    this.factory = new SharedInformerFactory({
      catalog: o.catalog,
      tracer: o.tracer,
      clock,
      fifo: o.fifo,
      watchList: o.watchList,
      resyncPeriodMs: o.resyncPeriodMs,
      traceObjects: o.traceObjects,
      random: o.random,
      scopeOf: (info) => this.scopes.get(idOf(info)) ?? { primary: false },
      wrap: (info, lw, role) => {
        const inner = o.wrap ? o.wrap(info, lw, role) : lw;
        return overlay ? overlay.wrap(info, inner) : inner;
      },
      onFatal: (err) => {
        this.fatal ??= err;
        this.forceStop(err);
      },
    });
    this.loops = new LoopDetector(o.loopThreshold ?? 5);
    this.writes = new WriteChannel({ mode: o.mode, catalog: o.catalog, factory: this.factory, tracer: o.tracer, clock, overlay, writer: o.writer, fieldManager: o.fieldManager, signal: this.kill.signal, random: o.random, faults: o.writeFaults, limiter: o.mode === 'apply' || o.mode === 'server-dry-run' ? new WriteLimiter(o.writeLimits ?? DEFAULT_WRITE_LIMITS, clock) : undefined, onLimit: (err) => {
      this.fatal ??= err;
      this.stop.abort(err);
    } });
  }

  /** Resolves every controller's resources and registers its triggers; rejects on an unknown resource. */
  async setup(): Promise<void> {
    const clock = this.o.clock ?? realClock;
    await this.resolveScopes();
    for (const c of this.o.controllers) {
      if (!c.definition.for) throw new Error(`controller ${c.name} names no primary resource`);
      const primary = await this.o.catalog.resolve(c.definition.for);
      const runner = new ReconcileRunner({
        name: c.name,
        definition: c.definition,
        primary,
        file: c.file,
        factory: this.factory,
        writes: this.writes,
        loops: this.loops,
        report: this.report,
        tracer: this.o.tracer,
        clock,
        concurrency: Math.max(1, this.o.concurrency ?? 1),
        debounceMs: this.o.debounceMs ?? 0,
        resyncPeriodMs: this.o.resyncPeriodMs,
        queue: this.o.queue ?? 'priority',
        starvedAfterMs: this.o.starvedAfterMs,
        readYourWrites: this.o.readYourWrites,
        rateLimiter: this.o.rateLimiter?.(),
        maxReasonsPerKey: this.o.maxReasonsPerKey,
        onMaskedRead: this.o.onMaskedRead,
        reconcileTimeoutMs: this.o.reconcileTimeoutMs,
      });
      await runner.setup();
      this.runners.push(runner);
    }
  }

  /**
   * Every controller's primary (the command line's selectors apply to each) and the modules' `cache`
   * entries; two modules asking different things of one resource's cache is an error.
   */
  private async resolveScopes(): Promise<void> {
    const declared = new Map<string, { entry: CacheEntry; by: string }>();
    for (const c of this.o.controllers) {
      for (const [resource, entry] of Object.entries(c.definition.cache ?? {})) {
        const info = await this.o.catalog.resolve(resource);
        const seen = declared.get(idOf(info));
        if (seen && JSON.stringify(seen.entry) !== JSON.stringify(entry)) throw new CatalogError(`${seen.by} and ${c.name} declare different caches for ${info.name} (one cache serves every controller of the run): give both the same cache entry`);
        declared.set(idOf(info), { entry, by: c.name });
        this.scopes.set(idOf(info), { primary: false, ...entry });
      }
    }
    for (const c of this.o.controllers) {
      if (!c.definition.for) continue;
      const info = await this.o.catalog.resolve(c.definition.for);
      this.scopes.set(idOf(info), { ...(this.scopes.get(idOf(info)) ?? {}), primary: true });
    }
  }

  /** Runs informers and controllers until the signal aborts; rejects when an informer gives up. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      this.factory.start(this.stop.signal);
      await Promise.all(this.runners.map((r) => r.run(this.stop.signal)));
      await this.factory.stopped();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (this.fatal !== undefined) throw this.fatal;
  }

  /** A second Ctrl-C: abort what is in flight too (sent writes waiting for an answer). */
  forceStop(reason?: unknown): void {
    this.stop.abort(reason);
    this.kill.abort(reason);
  }

  hasSynced(): boolean {
    return this.factory.hasSynced();
  }

  async whenSynced(signal?: AbortSignal): Promise<void> {
    await Promise.all(this.factory.informers.map((e) => e.informer.whenSynced(signal)));
  }

  /** Controllers whose primary resource holds no object once synced (a selector or namespace that matches nothing). */
  emptyPrimaries(): { controller: string; resource: string }[] {
    return this.runners.filter((r) => r.primarySize() === 0).map((r) => ({ controller: r.name, resource: r.primaryName }));
  }

  /** Objects marked deleting that finalizers still hold, in every informer's cache. */
  stuckDeleting(): { resource: string; key: string; finalizers: string[] }[] {
    const out = [];
    for (const e of this.factory.informers) {
      for (const obj of e.informer.getIndexer().list()) {
        const m = obj.metadata;
        if (m?.deletionTimestamp && (m.finalizers?.length ?? 0) > 0) out.push({ resource: e.info.name, key: metaNamespaceKey(obj), finalizers: [...m.finalizers!] });
      }
    }
    return out;
  }

  /** Reconciles running now, over every controller. */
  running(): number {
    return this.runners.reduce((n, r) => n + r.running(), 0);
  }

  /** Failed keys with a retry scheduled, over every controller. */
  retriesDue(): number {
    return this.runners.reduce((n, r) => n + r.retriesDue(), 0);
  }

  /** Every informer and every controller is done with what it was given. */
  isIdle(): boolean {
    return this.factory.isIdle() && (this.overlay?.isIdle() ?? true) && this.runners.every((r) => r.isIdle()) && !this.writes.awaitingEchoes();
  }
}
