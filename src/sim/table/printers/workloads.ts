// StatefulSets (NAME READY AGE), DaemonSets (NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE),
// ReplicationControllers (as ReplicaSets) and CronJobs, with kubectl's -o wide columns.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, wide } from '../columns.js';
import { formatLabels, formatLabelSelector } from '../labels.js';
import { containerCells, int, list, printer, str, type PrintableObject } from '../printer.js';

const desired = (obj: PrintableObject): number => (obj.spec?.replicas === undefined || obj.spec?.replicas === null ? 1 : int(obj.spec.replicas));

export const statefulSetPrinter = printer(
  [NAME_COLUMN, column('Ready', 'string', 'Number of the pod with ready state'), AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN],
  (s, now) => {
    const [names, images] = containerCells(s.spec?.template?.spec?.containers);
    return [str(s.metadata?.name), `${int(s.status?.readyReplicas)}/${desired(s)}`, translateTimestampSince(s.metadata?.creationTimestamp, now), names, images];
  },
);

export const daemonSetPrinter = printer(
  [
    NAME_COLUMN,
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
    column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
    column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN,
    wide(column('Selector', 'string', 'A label query over pods that are managed by the daemon set.')),
  ],
  (d, now) => {
    const [names, images] = containerCells(d.spec?.template?.spec?.containers);
    const s = d.status ?? {};
    return [
      str(d.metadata?.name), int(s.desiredNumberScheduled), int(s.currentNumberScheduled), int(s.numberReady), int(s.updatedNumberScheduled), int(s.numberAvailable),
      formatLabels(d.spec?.template?.spec?.nodeSelector), translateTimestampSince(d.metadata?.creationTimestamp, now), names, images, formatLabelSelector(d.spec?.selector),
    ];
  },
);

export const replicationControllerPrinter = printer(
  [
    NAME_COLUMN,
    column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN,
    wide(column('Selector', 'string', 'Selector is a label query over pods that should match the Replicas count.')),
  ],
  (rc, now) => {
    const [names, images] = containerCells(rc.spec?.template?.spec?.containers);
    return [str(rc.metadata?.name), desired(rc), int(rc.status?.replicas), int(rc.status?.readyReplicas), translateTimestampSince(rc.metadata?.creationTimestamp, now), names, images, formatLabels(rc.spec?.selector)];
  },
);

export const cronJobPrinter = printer(
  [
    NAME_COLUMN,
    column('Schedule', 'string', 'The schedule in Cron format.'),
    column('Timezone', 'string', 'The time zone name for the given schedule.'),
    column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions.'),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN,
    wide(column('Selector', 'string', 'A label query over pods that should match the pod count.')),
  ],
  (cj, now) => {
    const job = cj.spec?.jobTemplate?.spec ?? {};
    const [names, images] = containerCells(job.template?.spec?.containers);
    const last = cj.status?.lastScheduleTime;
    return [
      // printBoolPtr: a string cell ("True", "False", "<unset>") although the column says boolean.
      str(cj.metadata?.name), str(cj.spec?.schedule), cj.spec?.timeZone ? str(cj.spec.timeZone) : '<none>',
      typeof cj.spec?.suspend === 'boolean' ? (cj.spec.suspend ? 'True' : 'False') : '<unset>', list(cj.status?.active).length,
      last ? translateTimestampSince(last, now) : '<none>', translateTimestampSince(cj.metadata?.creationTimestamp, now), names, images, formatLabelSelector(job.selector),
    ];
  },
);
