// The runner of one user controller: its triggers (for/owns/watches) into the scheduler, the workqueue
// and N workers (informer/controller.ts: never two runs of one key at once), each run given a context,
// its action mapped to the queue (requeue, requeueAfter, error policy), and reported.
import type { Clock } from '../informer/clock.js';
import { Controller, type ReconcileResult } from '../informer/controller.js';
import { durationMs, MAX_TIMER_MS } from '../informer/duration.js';
import type { ReadonlyIndexer } from '../informer/indexer.js';
import type { Tracer } from '../informer/trace.js';
import type { KubeObject } from '../informer/types.js';
import type { RateLimiter } from '../informer/workqueue/rate-limiters.js';
import { syncCacheReader } from './cache-reader.js';
import { splitKey, type ResourceInfo } from './catalog.js';
import { createContext } from './context.js';
import { ControllerModuleError } from './controller-module-error.js';
import { compilePredicates } from './predicates.js';
import { userErrorSite } from './error-location.js';
import type { SharedInformerFactory } from './informer-factory.js';
import type { LoopDetector } from './loop-detector.js';
import type { RunReport, RunResult } from './report.js';
import { Scheduler } from './scheduler.js';
import { kubeRsReason } from './kube-rs-reason.js';
import { triggerMapped, triggerOwners, triggerSelf, type TriggerContext, type TriggerReason } from './trigger.js';
import type { ControllerDefinition, ReconcileAction, ReconcileRequest } from './types.js';
import type { RunRef, WriteChannel } from './writes.js';

export interface RunnerOptions {
  name: string;
  definition: ControllerDefinition;
  /** The resolved `for` resource. */
  primary: ResourceInfo;
  /** The module the definition came from (named when its code throws where kwatch calls it). */
  file?: string;
  factory: SharedInformerFactory;
  writes: WriteChannel;
  loops: LoopDetector;
  report: RunReport;
  tracer: Tracer;
  clock: Clock;
  /** At most this many runs at once (never two of one key). */
  concurrency: number;
  debounceMs: number;
  resyncPeriodMs?: number;
  /** The workqueue (default priority, controller-runtime 0.23's). */
  queue?: 'priority' | 'fifo';
  starvedAfterMs?: number;
  readYourWrites?: boolean;
  rateLimiter?: RateLimiter<string>;
  /** Reasons kept per key between two runs (the oldest are counted as dropped beyond it). */
  maxReasonsPerKey?: number;
  /** --reconcile-timeout: a run longer than this is an error, `deadline exceeded` (off when undefined). */
  reconcileTimeoutMs?: number;
  /** Replaying a masked recording: a read of a masked value (see masked-reads.ts). */
  onMaskedRead?: (controller: string, resource: string, key: string, path: string) => void;
}

export class ReconcileRunner {
  readonly controller: Controller;
  readonly scheduler: Scheduler;
  private signal: AbortSignal = new AbortController().signal;
  private primaryIndexer?: ReadonlyIndexer;
  /** Whether the trace has said that a requeueAfter was cut to the timer range (said once per controller). */
  private saidClamped = false;
  /** Keys whose last run failed or returned `{ requeue: true }` and that have a retry scheduled (the queue's backoff or the error policy's delay). */
  private readonly retrying = new Set<string>();

  constructor(private readonly o: RunnerOptions) {
    this.controller = new Controller({
      name: o.name,
      workers: o.concurrency,
      clock: o.clock,
      tracer: o.tracer,
      rateLimiter: o.rateLimiter,
      maxReasonsPerKey: o.maxReasonsPerKey,
      queue: o.queue ?? 'priority',
      starvedAfterMs: o.starvedAfterMs,
      traceController: true,
      // The table shows where; -o ndjson carries the stack too.
      errorDetail: (err) => ({ at: userErrorSite(err), stack: err instanceof Error ? err.stack : undefined }),
      reconcile: (req) => this.reconcileOne(req.key, req.reasons as TriggerReason[], req.reasonsDropped),
      // --max-reconciles N means N runs: a key queued again during the last one is not run once the limit stops the session.
      drainOnStop: () => !o.report.limited,
    });
    this.scheduler = new Scheduler(this.controller.queue, { controller: o.name, debounceMs: o.debounceMs, clock: o.clock, tracer: o.tracer });
  }

  /** Starts (or reuses) the informers the controller watches and routes their events into the scheduler. */
  async setup(): Promise<void> {
    const { definition: d, factory } = this.o;
    const t: TriggerContext = { controller: this.o.name, primary: this.o.primary, sink: this.scheduler, clock: this.o.clock, tracer: this.o.tracer, origins: this.o.writes, priorities: (this.o.queue ?? 'priority') === 'priority' };
    const primary = await factory.informerFor(this.o.primary);
    this.primaryIndexer = primary.informer.getIndexer();
    this.controller.track(primary.informer, triggerSelf(primary.informer, primary.info, t, this.o.resyncPeriodMs, compilePredicates(d.predicates)));
    for (const owned of d.owns ?? []) {
      const spec = typeof owned === 'string' ? { resource: owned } : owned;
      const e = await factory.informerFor(spec.resource);
      this.controller.track(e.informer, triggerOwners(e.informer, e.info, t, d.ownsAllOwners === true, compilePredicates(spec.predicates)));
    }
    for (const [resource, funcs] of Object.entries(d.indexers ?? {})) {
      const e = await factory.informerFor(resource);
      e.informer.addIndexers(Object.fromEntries(Object.entries(funcs).map(([name, fn]) => [name, (obj: KubeObject) => this.userIndexer(resource, name, fn, obj)])));
    }
    const cache = syncCacheReader(factory);
    for (const w of d.watches ?? []) {
      const e = await factory.informerFor(w.resource);
      this.controller.track(e.informer, triggerMapped(e.informer, e.info, t, (obj) => w.map(obj, cache), compilePredicates(w.predicates)));
    }
  }

  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    try {
      await this.controller.run(signal);
    } finally {
      this.scheduler.stop();
    }
  }

  /** The module's index function on one object; what it throws is blamed on the module, not on kwatch. */
  private userIndexer(resource: string, name: string, fn: (obj: KubeObject) => string[] | undefined, obj: KubeObject): string[] {
    try {
      return fn(obj) ?? [];
    } catch (err) {
      const key = obj.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : (obj.metadata?.name ?? '');
      const where = this.o.file ?? `controller ${this.o.name}`;
      throw new ControllerModuleError(`${where}: its indexer "${name}" on ${resource} threw for ${key}: ${err instanceof Error ? err.message : String(err)}`, this.o.file ?? '', { cause: err });
    }
  }

  /** Runs in progress now. */
  running(): number {
    return this.controller.stats.active;
  }

  /** Keys whose last run failed or returned `{ requeue: true }` and will be retried: --once waits for them, as controller-runtime retries them. */
  retriesDue(): number {
    return this.retrying.size;
  }

  get name(): string {
    return this.o.name;
  }

  get primaryName(): string {
    return this.o.primary.name;
  }

  /** Objects of the primary resource in the cache. */
  primarySize(): number {
    return this.primaryIndexer?.size ?? 0;
  }

  /** Nothing debouncing, queued or running (keys waiting for a requeueAfter do not count). */
  isIdle(): boolean {
    return this.scheduler.isIdle() && this.controller.isIdle();
  }

  /** The result without its clamp note; the first clamped requeueAfter gets one `reconcile clamped` trace record. */
  private clamped(result: (ReconcileResult & { requestedMs?: number }) | undefined, key: string, from: string): ReconcileResult {
    if (result?.requestedMs === undefined) return result;
    const { requestedMs, ...rest } = result;
    if (!this.saidClamped && this.o.tracer.enabled) {
      this.saidClamped = true;
      this.o.tracer.emit({ time: this.o.clock.now(), stage: 'reconcile', op: 'clamped', key, controller: this.o.name, field: `${from} requeueAfter`, requestedMs, usedMs: MAX_TIMER_MS, message: `${from} returned requeueAfter ${requestedMs}ms, past the longest timer Node.js keeps (${MAX_TIMER_MS}ms, about 24.8 days): waiting that long instead (said once)` });
    }
    return rest;
  }

  /**
   * The user's reconcile, or `deadline exceeded` once --reconcile-timeout passes: its context is aborted and
   * any write it still tries is refused (JavaScript cannot stop it; the key is free for its next run).
   */
  private withDeadline(work: ReconcileAction | Promise<ReconcileAction>, run: RunRef, deadline: AbortController): Promise<ReconcileAction> {
    const ms = this.o.reconcileTimeoutMs;
    if (ms === undefined || !(work instanceof Promise)) return Promise.resolve(work);
    return new Promise<ReconcileAction>((resolve, reject) => {
      const timer = this.o.clock.setTimeout(() => {
        run.expired = true;
        const err = new Error(`deadline exceeded: the reconcile ran longer than --reconcile-timeout ${ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`}`);
        deadline.abort(err);
        reject(err);
      }, ms);
      work.then(
        (v) => {
          timer.cancel();
          resolve(v);
        },
        (e: unknown) => {
          timer.cancel();
          reject(e);
        },
      );
    });
  }

  private async reconcileOne(key: string, reasons: TriggerReason[], dropped: number): Promise<ReconcileResult> {
    const o = this.o;
    const run: RunRef = { controller: o.name, key, writes: [] };
    const onMaskedRead = o.onMaskedRead && ((resource: string, objKey: string, path: string) => o.onMaskedRead!(o.name, resource, objKey, path));
    // The run's own signal: kwatch stopping, or the run's deadline (controller-runtime's context with timeout).
    const deadline = new AbortController();
    const signal = o.reconcileTimeoutMs === undefined ? this.signal : AbortSignal.any([this.signal, deadline.signal]);
    const ctx = createContext(run, { factory: o.factory, writes: o.writes, tracer: o.tracer, clock: o.clock, signal, onMaskedRead, readYourWrites: o.readYourWrites });
    const { namespace, name } = splitKey(key);
    const req: ReconcileRequest = { namespace, name, reasons: reasons.map(publicReason) };
    if (dropped > 0) (req as { reasonsDropped?: number }).reasonsDropped = dropped;
    const start = o.clock.now();
    this.retrying.delete(key);
    let outcome: RunResult = 'ok';
    let error: string | undefined;
    let errorAt: string | undefined;
    const slow = o.clock.setTimeout(() => {
      if (o.tracer.enabled) o.tracer.emit({ time: o.clock.now(), stage: 'reconcile', op: 'still-running', key, controller: o.name, afterMs: STILL_RUNNING_MS });
    }, STILL_RUNNING_MS);
    try {
      const result = this.clamped(toResult(await this.withDeadline(o.definition.reconcile(req, ctx), run, deadline), 'reconcile'), key, 'reconcile');
      outcome = result?.requeueAfterMs ? 'requeue-after' : result?.requeue ? 'requeue' : 'ok';
      // `{ requeue: true }` says the key is not done (controller-runtime's Requeue: a rate-limited retry, as after an
      // error): --once waits for that run too, or a reconciler that never finishes would pass for converged.
      if (outcome === 'requeue') this.retrying.add(key);
      return result;
    } catch (err) {
      outcome = 'error';
      error = err instanceof Error ? err.message : String(err);
      errorAt = userErrorSite(err);
      // Without a policy (or when it throws) the queue's backoff retries the key.
      this.retrying.add(key);
      if (!o.definition.errorPolicy) throw err;
      let after: ReconcileResult;
      try {
        after = this.clamped(toResult(await o.definition.errorPolicy(err, req, ctx), 'errorPolicy'), key, 'errorPolicy');
      } catch {
        throw err;
      }
      const requeueAfterMs = after?.requeueAfterMs ?? (after?.requeue ? 1 : undefined);
      if (requeueAfterMs === undefined) this.retrying.delete(key);
      return { error: err, requeueAfterMs };
    } finally {
      slow.cancel();
      o.report.add(o.name, key, reasons, run.writes, outcome, o.clock.now() - start, error, errorAt);
      const loop = o.loops.observe(o.name, key, reasons, run.writes);
      if (loop && o.tracer.enabled) o.tracer.emit({ time: o.clock.now(), stage: 'reconcile', op: 'loop', key, controller: o.name, rounds: loop.rounds, fields: loop.fields, generationChangedWouldBreak: loop.generationChangedWouldBreak });
    }
  }
}

/** A run still running after this long gets a `still-running` record (the first sign of a hung reconcile). */
const STILL_RUNNING_MS = 10_000;

/** The reason as the user's code sees it: kube-rs's reason text and what caused it, no queue bookkeeping. */
function publicReason(r: TriggerReason): TriggerReason {
  const reason = r.reason ?? r.op;
  return { ...r, reason, kubeRs: r.kubeRs ?? kubeRsReason(reason) };
}

/** kube-rs's Action: nothing (await change), { requeue }, or { requeueAfter: '30s' | ms }. */
function toResult(action: ReconcileAction, from: string): (ReconcileResult & { requestedMs?: number }) | undefined {
  if (action === undefined || action === null) return undefined;
  if (typeof action !== 'object') throw new TypeError(`${from} returned ${JSON.stringify(action)}: return nothing, { requeue: true } or { requeueAfter: '30s' }`);
  if (action.requeueAfter !== undefined) {
    const ms = typeof action.requeueAfter === 'number' ? action.requeueAfter : durationMs(String(action.requeueAfter));
    if (ms === undefined || !Number.isFinite(ms) || ms < 0) throw new TypeError(`${from} returned requeueAfter ${JSON.stringify(action.requeueAfter)}: use milliseconds or a duration such as '30s'`);
    // Past Node's timer range a wait would fire at once: cut it, and let the runner say so.
    return ms > MAX_TIMER_MS ? { requeueAfterMs: MAX_TIMER_MS, requestedMs: ms } : { requeueAfterMs: Math.max(1, ms) };
  }
  return action.requeue ? { requeue: true } : undefined;
}
