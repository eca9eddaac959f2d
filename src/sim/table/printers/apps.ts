// Deployments (NAME READY UP-TO-DATE AVAILABLE AGE) and ReplicaSets (NAME DESIRED CURRENT READY AGE), + wide CONTAINERS IMAGES SELECTOR.
import { column } from '../columns.js';
import { DEPLOYMENT, REPLICA_SET } from '../descriptions.js';
import { formatLabelSelector, labelSelectorString } from '../labels.js';
import { int } from '../printer.js';
import { desiredReplicas, podTemplatePrinter } from './pod-template-printer.js';

export const deploymentPrinter = podTemplatePrinter({
  columns: [
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', DEPLOYMENT.updatedReplicas),
    column('Available', 'string', DEPLOYMENT.availableReplicas),
  ],
  cells: (d) => [`${int(d.status?.readyReplicas)}/${desiredReplicas(d)}`, int(d.status?.updatedReplicas), int(d.status?.availableReplicas)],
  // printDeployment prints the selector string itself: "" (not "<none>") when empty, "<invalid>" when unparsable.
  selector: { description: DEPLOYMENT.selector, cell: (d) => labelSelectorString(d.spec?.selector) ?? '<invalid>' },
});

export const replicaSetPrinter = podTemplatePrinter({
  columns: [
    column('Desired', 'integer', REPLICA_SET.specReplicas),
    column('Current', 'integer', REPLICA_SET.statusReplicas),
    column('Ready', 'integer', REPLICA_SET.readyReplicas),
  ],
  cells: (rs) => [desiredReplicas(rs), int(rs.status?.replicas), int(rs.status?.readyReplicas)],
  selector: { description: REPLICA_SET.selector, cell: (rs) => formatLabelSelector(rs.spec?.selector) },
});
