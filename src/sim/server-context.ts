// What every request handler shares: the store, the fault controller, open watches and server-wide timings.
import type { AccessControl } from './auth/access-control.js';
import type { AuthServices } from './auth/review-handlers.js';
import type { DeleteOutcome, DeleteRequest } from './controllers/graceful-delete.js';
import type { FaultController } from './faults.js';
import type { ResourceType } from './registry.js';
import type { SimStore } from './store.js';
import type { FeatureGates, KubeVersion } from './kube-version.js';

/** An open watch stream that the server (shutdown) or a fault can close. */
export interface ActiveWatch {
  close(mode: 'end' | 'reset'): void;
}

export interface ServerContext {
  store: SimStore;
  faults: FaultController;
  bookmarkIntervalMs: number;
  /** How long a LIST/watch-list for a future resourceVersion waits before 504 (kube: 3 s). */
  tooLargeWaitMs: number;
  watches: Set<ActiveWatch>;
  /** The Kubernetes release served (default the newest) and its feature gates (default: the release's defaults). */
  kubeVersion?: KubeVersion;
  featureGates?: FeatureGates;
  /** How often a running container writes a log line (default 10 s; tests shorten it). */
  logHeartbeatMs?: number;
  /** Set when the sim runs with users: authentication and RBAC before any handler. */
  access?: Pick<AccessControl, 'check'>;
  /** What answers the review kinds and serviceaccounts/token (unset in the fork: the endpoint forwards those). */
  auth?: AuthServices;
  /** Set when the server runs its controllers: DELETE then follows kube's graceful deletion and finalizers. */
  deletes?: {
    delete(type: ResourceType, namespace: string | undefined, name: string, req: DeleteRequest): DeleteOutcome;
    /** Controller syncs that threw (retried with backoff), and the last error: shown in /_kwatch/state. */
    readonly errors: number;
    readonly lastError: string | undefined;
    /** The controllers' creation budgets (--max-objects): shown in /_kwatch/state. */
    budgets(): object;
  };
}
