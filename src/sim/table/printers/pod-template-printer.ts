// The layout kube's printers give every kind that runs a pod template (Deployment, ReplicaSet, StatefulSet, DaemonSet,
// ReplicationController, Job, CronJob): NAME, the kind's own columns, AGE, then -o wide's CONTAINERS and IMAGES of the
// template and, for every kind but StatefulSet, its SELECTOR.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, wide, type ColumnDefinition } from '../columns.js';
import { containerCells, int, printer, str, type PrintableObject, type Printer } from '../printer.js';

export interface PodTemplateLayout {
  /** The kind's own columns, between NAME and AGE. */
  columns: ColumnDefinition[];
  /** Their cells. */
  cells(obj: PrintableObject, now: number): unknown[];
  /** Where the pod template sits: spec.template unless said otherwise (a CronJob's is in its job template). */
  template?(obj: PrintableObject): PrintableObject | undefined;
  /** The wide SELECTOR column's description and the cell, as the kind's printer formats its selector. */
  selector?: { description: string; cell(obj: PrintableObject): string };
}

export function podTemplatePrinter(layout: PodTemplateLayout): Printer {
  const template = layout.template ?? ((obj: PrintableObject) => obj.spec?.template);
  const selector = layout.selector;
  return printer(
    [NAME_COLUMN, ...layout.columns, AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, ...(selector ? [wide(column('Selector', 'string', selector.description))] : [])],
    (obj, now) => [
      str(obj.metadata?.name), ...layout.cells(obj, now), translateTimestampSince(obj.metadata?.creationTimestamp, now),
      ...containerCells(template(obj)?.spec?.containers), ...(selector ? [selector.cell(obj)] : []),
    ],
  );
}

/** spec.replicas as apps/v1 defaulting leaves it: 1 when unset. */
export function desiredReplicas(obj: PrintableObject): number {
  return obj.spec?.replicas === undefined || obj.spec?.replicas === null ? 1 : int(obj.spec.replicas);
}
