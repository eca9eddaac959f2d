// Nodes: NAME STATUS ROLES AGE VERSION (+ wide INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME).
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN, wide } from '../columns.js';
import { NODE } from '../descriptions.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

const COLUMNS = [
  NAME_COLUMN,
  column('Status', 'string', 'The status of the node'),
  column('Roles', 'string', 'The roles of the node'),
  AGE_COLUMN,
  column('Version', 'string', NODE.kubeletVersion),
  wide(column('Internal-IP', 'string', NODE.addresses)),
  wide(column('External-IP', 'string', NODE.addresses)),
  wide(column('OS-Image', 'string', NODE.osImage)),
  wide(column('Kernel-Version', 'string', NODE.kernelVersion)),
  wide(column('Container-Runtime', 'string', NODE.containerRuntimeVersion)),
];

/** Ready / NotReady / Unknown (no Ready condition), then SchedulingDisabled when cordoned. */
function nodeStatus(node: PrintableObject): string {
  const conditions: { type?: string; status?: string }[] = list(node.status?.conditions);
  // Go fills a map by type, so the last Ready condition wins.
  const ready = conditions.filter((c) => c?.type === 'Ready').pop();
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Roles from node-role.kubernetes.io/<role> label keys and a kubernetes.io/role=<role> label, sorted and deduplicated. */
function nodeRoles(node: PrintableObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((node.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') {
      roles.add(v);
    }
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function address(node: PrintableObject, type: string): string {
  const a = list(node.status?.addresses).find((x: { type?: string }) => x?.type === type);
  return a ? str(a.address) : '<none>';
}

export const nodePrinter = printer(COLUMNS, (node, now) => {
  const info = node.status?.nodeInfo ?? {};
  return [
    str(node.metadata?.name), nodeStatus(node), nodeRoles(node), translateTimestampSince(node.metadata?.creationTimestamp, now), str(info.kubeletVersion),
    address(node, 'InternalIP'), address(node, 'ExternalIP'),
    str(info.osImage) || '<unknown>', str(info.kernelVersion) || '<unknown>', str(info.containerRuntimeVersion) || '<unknown>',
  ];
});
