// kwatch's public module: what a user's controller module imports from 'kwatch' (kwatch reconcile --with FILE).
export { defineController } from './reconcile/types.js';
export type {
  CacheEntry,
  ControllerDefinition,
  OwnsSpec,
  Predicate,
  PredicateEvent,
  ErrorPolicyFn,
  KubeObject,
  ListQuery,
  ObjectRef,
  PatchOptions,
  PatchType,
  ReconcileAction,
  ReconcileContext,
  ReconcileFn,
  ReconcileReason,
  ReconcileRequest,
  Reconciler,
  WatchSpec,
  WriteResult,
} from './reconcile/types.js';
