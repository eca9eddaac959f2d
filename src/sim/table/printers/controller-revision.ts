// ControllerRevisions: NAME CONTROLLER REVISION AGE (the controller as <kind>.<group>/<name>, "<none>" for an orphan).
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { list, printer, str } from '../printer.js';

function controllerName(owners: unknown): string {
  const ref = list<{ apiVersion?: string; kind?: string; name?: string; controller?: boolean }>(owners).find((r) => r?.controller === true);
  if (!ref) return '<none>';
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  // formatResourceName(GroupKind, name, withKind): "statefulset.apps/web", "pod/x" for the core group.
  const kind = str(ref.kind).toLowerCase();
  return `${group ? `${kind}.${group}` : kind}/${str(ref.name)}`;
}

export const controllerRevisionPrinter = printer(
  // Revision is an int64 cell under a column kube declares as a string.
  [NAME_COLUMN, column('Controller', 'string', 'Controller of the object'), column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'), AGE_COLUMN],
  (r, now) => [str(r.metadata?.name), controllerName(r.metadata?.ownerReferences), typeof r.revision === 'number' ? r.revision : 0, translateTimestampSince(r.metadata?.creationTimestamp, now)],
);
