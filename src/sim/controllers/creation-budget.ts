// A safety net kube does not have but a sim needs: each controller may create at most so many objects over the
// sim's lifetime, so that no mistake (a selector that never matches what it creates, a Job that never completes)
// can flood the machine. Past the budget the controller logs one line and creates nothing more.

export const DEFAULT_MAX_OBJECTS = 10_000;

export class CreationBudget {
  private created = 0;
  private exhausted = false;

  /** `controller` and `what` name it in the log line: "the replicaset controller has created 10000 pods". */
  constructor(readonly controller: string, private readonly what: string, private readonly max: number, private readonly log: (line: string) => void) {}

  /** Whether one more object may be created; the first refusal logs the line. */
  allows(): boolean {
    if (this.created < this.max) return true;
    if (!this.exhausted) {
      this.exhausted = true;
      this.log(`kwatch sim: the ${this.controller} controller has created ${this.created} ${this.what}, the --max-objects budget: it creates no more (delete the owner, or restart the sim with a larger --max-objects)`);
    }
    return false;
  }

  /** Counts an object the controller created. */
  spend(): void {
    this.created++;
  }

  get state(): { created: number; exhausted: boolean } {
    return { created: this.created, exhausted: this.exhausted };
  }
}

/** The budgets of the controllers that create objects. */
export interface CreationBudgets {
  readonly maxObjects: number;
  readonly replicaSet: CreationBudget;
  readonly deployment: CreationBudget;
  readonly job: CreationBudget;
  readonly cronJob: CreationBudget;
  readonly statefulSet: CreationBudget;
  readonly daemonSet: CreationBudget;
  readonly endpointSlice: CreationBudget;
}

export function creationBudgets(maxObjects: number, log: (line: string) => void): CreationBudgets {
  return {
    maxObjects,
    replicaSet: new CreationBudget('replicaset', 'pods', maxObjects, log),
    deployment: new CreationBudget('deployment', 'replicasets', maxObjects, log),
    job: new CreationBudget('job', 'pods', maxObjects, log),
    cronJob: new CreationBudget('cronjob', 'jobs', maxObjects, log),
    statefulSet: new CreationBudget('statefulset', 'pods', maxObjects, log),
    daemonSet: new CreationBudget('daemonset', 'pods', maxObjects, log),
    endpointSlice: new CreationBudget('endpointslice', 'endpointslices', maxObjects, log),
  };
}

/** What /_kwatch/state shows: the budget, and per controller how many it created and whether it stopped. */
export function budgetState(b: CreationBudgets): { maxObjects: number; created: Record<string, number>; exhausted: string[] } {
  const all = [b.replicaSet, b.deployment, b.job, b.cronJob, b.statefulSet, b.daemonSet, b.endpointSlice];
  return {
    maxObjects: b.maxObjects,
    created: Object.fromEntries(all.map((x) => [x.controller, x.state.created])),
    exhausted: all.filter((x) => x.state.exhausted).map((x) => x.controller),
  };
}
