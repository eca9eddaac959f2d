// Services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE (+ wide SELECTOR).
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN, wide } from '../columns.js';
import { SERVICE } from '../descriptions.js';
import { formatLabels } from '../labels.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

const COLUMNS = [
  NAME_COLUMN,
  column('Type', 'string', SERVICE.type),
  column('Cluster-IP', 'string', SERVICE.clusterIP),
  column('External-IP', 'string', SERVICE.externalIPs),
  column('Port(s)', 'string', SERVICE.ports),
  AGE_COLUMN,
  wide(column('Selector', 'string', SERVICE.selector)),
];

/** Load-balancer ingress IPs (else hostnames), deduplicated and sorted; the server prints wide, so never clipped. */
function loadBalancerAddresses(svc: PrintableObject): string[] {
  const set = new Set<string>();
  for (const i of list(svc.status?.loadBalancer?.ingress)) {
    if (i?.ip) set.add(i.ip);
    else if (i?.hostname) set.add(i.hostname);
  }
  return [...set].sort();
}

function externalIP(svc: PrintableObject): string {
  const external: string[] = list(svc.spec?.externalIPs);
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(svc);
      if (external.length) return [...lb, ...external].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(svc.spec?.externalName);
    default:
      return '<unknown>';
  }
}

function ports(svc: PrintableObject): string {
  const all: { port?: number; nodePort?: number; protocol?: string }[] = list(svc.spec?.ports);
  if (all.length === 0) return '<none>';
  return all.map((p) => (p.nodePort && p.nodePort > 0 ? `${p.port ?? 0}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port ?? 0}/${p.protocol ?? ''}`)).join(',');
}

export const servicePrinter = printer(COLUMNS, (svc, now) => [
  str(svc.metadata?.name), str(svc.spec?.type), str(svc.spec?.clusterIPs?.[0]) || '<none>', externalIP(svc), ports(svc),
  translateTimestampSince(svc.metadata?.creationTimestamp, now), formatLabels(svc.spec?.selector),
]);
