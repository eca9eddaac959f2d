// kube-apiserver's APIService registration (the aggregator's autoregister and crdregistration controllers): every
// served group version has a Local APIService, so one comes with each CRD version that becomes served and goes with
// it. The built-in ones are seeded with the cluster (kinds/platform-objects.ts).
import { syncApiServices } from '../kinds/platform-objects.js';
import type { ControllerContext } from './controller-context.js';
import { WorkQueue } from './work-queue.js';

export class APIServiceController {
  readonly queue: WorkQueue;

  constructor(ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue(() => syncApiServices(ctx.store), onError);
  }

  /** A CustomResourceDefinition changed: the served group versions may have. */
  observeCrd(): void {
    this.queue.add('apiservices');
  }
}
