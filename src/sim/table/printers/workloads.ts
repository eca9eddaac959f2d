// StatefulSets (NAME READY AGE), DaemonSets (NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE),
// ReplicationControllers (as ReplicaSets) and CronJobs, with kubectl's -o wide columns.
import { translateTimestampSince } from '../age.js';
import { column } from '../columns.js';
import { formatLabels, formatLabelSelector } from '../labels.js';
import { int, list, str } from '../printer.js';
import { desiredReplicas, podTemplatePrinter } from './pod-template-printer.js';

export const statefulSetPrinter = podTemplatePrinter({
  columns: [column('Ready', 'string', 'Number of the pod with ready state')],
  cells: (s) => [`${int(s.status?.readyReplicas)}/${desiredReplicas(s)}`],
});

export const daemonSetPrinter = podTemplatePrinter({
  columns: [
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
    column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
    column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
  ],
  cells: (d) => {
    const s = d.status ?? {};
    return [int(s.desiredNumberScheduled), int(s.currentNumberScheduled), int(s.numberReady), int(s.updatedNumberScheduled), int(s.numberAvailable), formatLabels(d.spec?.template?.spec?.nodeSelector)];
  },
  selector: { description: 'A label query over pods that are managed by the daemon set.', cell: (d) => formatLabelSelector(d.spec?.selector) },
});

export const replicationControllerPrinter = podTemplatePrinter({
  columns: [
    column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
  ],
  cells: (rc) => [desiredReplicas(rc), int(rc.status?.replicas), int(rc.status?.readyReplicas)],
  // A ReplicationController's selector is a plain label map.
  selector: { description: 'Selector is a label query over pods that should match the Replicas count.', cell: (rc) => formatLabels(rc.spec?.selector) },
});

export const cronJobPrinter = podTemplatePrinter({
  columns: [
    column('Schedule', 'string', 'The schedule in Cron format.'),
    column('Timezone', 'string', 'The time zone name for the given schedule.'),
    column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions.'),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
  ],
  cells: (cj, now) => {
    const last = cj.status?.lastScheduleTime;
    return [
      // printBoolPtr: a string cell ("True", "False", "<unset>") although the column says boolean.
      str(cj.spec?.schedule), cj.spec?.timeZone ? str(cj.spec.timeZone) : '<none>',
      typeof cj.spec?.suspend === 'boolean' ? (cj.spec.suspend ? 'True' : 'False') : '<unset>', list(cj.status?.active).length,
      last ? translateTimestampSince(last, now) : '<none>',
    ];
  },
  template: (cj) => cj.spec?.jobTemplate?.spec?.template,
  selector: { description: 'A label query over pods that should match the pod count.', cell: (cj) => formatLabelSelector(cj.spec?.jobTemplate?.spec?.selector) },
});
