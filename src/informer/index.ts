// The informer core's public API: reflector → FIFO → indexer → shared informer → workqueue → reconcile, plus trace.
export * from './types.js';
export * from './errors.js';
export * from './clock.js';
export * from './trace.js';
export type { ReflectorStore } from './reflector-store.js';

// Reaching the server: watch decoding, paged lists, the reflector (written alongside).
export * from './watch-decoder.js';
export * from './pager.js';
export * from './backoff.js';
export * from './reflector.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './reflector-state.js';
export type { ReflectorPhase, ResumeKind } from './reflector-state.js';
export * from './retry-after.js';
export * from './recording/recording-format.js';
export * from './fake-lister-watcher.js';

// FIFOs.
export { DELTA_TYPES, DeletedFinalStateUnknown, FifoClosedError, RequeueError, deletionHandlingKey, isTombstone, resourceVersionOf, unwrapTombstone } from './deltas.js';
export type { Delta, DeltaType, Deltas, InformerQueue, KnownObjects, ObjectOrTombstone, PopProcessFunc, TransformFunc } from './deltas.js';
export { DeltaFifo } from './delta-fifo.js';
export type { DeltaFifoOptions } from './delta-fifo.js';
export { RealFifo } from './real-fifo.js';
export type { RealFifoOptions } from './real-fifo.js';

// Cache.
export { Indexer, IndexError, NAMESPACE_INDEX, metaNamespaceIndexFunc } from './indexer.js';
export type { IndexFunc, Indexers, IndexerOptions, ReadonlyIndexer } from './indexer.js';
export { annotationIndexFunc, indexFuncFromSpec, jsonPathIndexFunc, labelIndexFunc, namespaceIndexFunc, nodeNameIndexFunc, ownerIndexFunc, phaseIndexFunc } from './index-funcs.js';
export { JsonPathError, compileJsonPath, formatJsonPathValue, jsonPathValues } from './jsonpath.js';
export type { JsonPath } from './jsonpath.js';
export { chooseTransform, keepObject, stripManagedFields } from './transform.js';

// Shared informer.
export { ProcessorListener } from './processor-listener.js';
export type { ListenerStats, Notification, ResourceEventHandler } from './processor-listener.js';
export { SharedProcessor, determineResyncPeriod } from './shared-processor.js';
export { DEFAULT_LISTENER_BUFFER_SIZE, MINIMUM_RESYNC_PERIOD_MS, SharedIndexInformer, processDeltas } from './shared-informer.js';
export type { DeltaHandler, HandlerOptions, HandlerRegistration, SharedIndexInformerOptions } from './shared-informer.js';

// Workqueue and reconcile.
export { Queue } from './workqueue/queue.js';
export type { GetResult, QueueOptions, QueueReason } from './workqueue/queue.js';
export { DelayingQueue } from './workqueue/delaying-queue.js';
export { BucketRateLimiter, ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter, MaxOfRateLimiter, WithMaxWaitRateLimiter, defaultControllerRateLimiter, defaultItemBasedRateLimiter } from './workqueue/rate-limiters.js';
export type { RateLimiter } from './workqueue/rate-limiters.js';
export { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';
export type { RateLimitingQueueOptions } from './workqueue/rate-limiting-queue.js';
export { Controller, runReconciler } from './controller.js';
export type { ControllerOptions, ControllerStats, ReconcileFunc, ReconcileRequest, ReconcileResult } from './controller.js';
export { buildPipeline, dryRunReconcile } from './pipeline.js';
export type { Pipeline, PipelineOptions, PipelineSource } from './pipeline.js';
