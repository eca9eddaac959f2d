// Deployments (NAME READY UP-TO-DATE AVAILABLE AGE) and ReplicaSets (NAME DESIRED CURRENT READY AGE), + wide CONTAINERS IMAGES SELECTOR.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, wide } from '../columns.js';
import { DEPLOYMENT, REPLICA_SET } from '../descriptions.js';
import { formatLabelSelector, labelSelectorString } from '../labels.js';
import { containerCells, int, printer, str, type PrintableObject } from '../printer.js';

/** spec.replicas as apps/v1 defaulting leaves it: 1 when unset. */
function desired(obj: PrintableObject): number {
  return obj.spec?.replicas === undefined || obj.spec?.replicas === null ? 1 : int(obj.spec.replicas);
}

export const deploymentPrinter = printer(
  [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', DEPLOYMENT.updatedReplicas),
    column('Available', 'string', DEPLOYMENT.availableReplicas),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    wide(column('Selector', 'string', DEPLOYMENT.selector)),
  ],
  (d, now) => {
    const [names, images] = containerCells(d.spec?.template?.spec?.containers);
    const status = d.status ?? {};
    return [
      str(d.metadata?.name), `${int(status.readyReplicas)}/${desired(d)}`, int(status.updatedReplicas), int(status.availableReplicas),
      translateTimestampSince(d.metadata?.creationTimestamp, now),
      // printDeployment prints the selector string itself: "" (not "<none>") when empty, "<invalid>" when unparsable.
      names, images, labelSelectorString(d.spec?.selector) ?? '<invalid>',
    ];
  },
);

export const replicaSetPrinter = printer(
  [
    NAME_COLUMN,
    column('Desired', 'integer', REPLICA_SET.specReplicas),
    column('Current', 'integer', REPLICA_SET.statusReplicas),
    column('Ready', 'integer', REPLICA_SET.readyReplicas),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    wide(column('Selector', 'string', REPLICA_SET.selector)),
  ],
  (rs, now) => {
    const [names, images] = containerCells(rs.spec?.template?.spec?.containers);
    return [
      str(rs.metadata?.name), desired(rs), int(rs.status?.replicas), int(rs.status?.readyReplicas),
      translateTimestampSince(rs.metadata?.creationTimestamp, now), names, images, formatLabelSelector(rs.spec?.selector),
    ];
  },
);
