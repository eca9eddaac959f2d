// Ingresses (NAME CLASS HOSTS ADDRESS PORTS AGE), IngressClasses, Endpoints (NAME ENDPOINTS AGE) and EndpointSlices
// (NAME ADDRESSTYPE PORTS ENDPOINTS AGE), formatted as kube's printers format them.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

/** Up to `max` entries joined, then " + N more..." as kube's printers cut long lists. */
function capped(all: string[], max: number, sep = ','): string {
  return all.length > max ? `${all.slice(0, max).join(sep)} + ${all.length - max} more...` : all.join(sep);
}

function ingressHosts(ing: PrintableObject): string {
  const rules = list(ing.spec?.rules);
  if (rules.length === 0) return '*';
  return capped(rules.map((r) => str(r?.host) || '*'), 4);
}

function ingressAddress(ing: PrintableObject): string {
  return list(ing.status?.loadBalancer?.ingress).map((i) => str(i?.ip) || str(i?.hostname)).filter(Boolean).join(',');
}

export const ingressPrinter = printer(
  [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  (ing, now) => [
    str(ing.metadata?.name), str(ing.spec?.ingressClassName) || '<none>', ingressHosts(ing), ingressAddress(ing),
    list(ing.spec?.tls).length ? '80, 443' : '80', translateTimestampSince(ing.metadata?.creationTimestamp, now),
  ],
);

export const ingressClassPrinter = printer(
  [NAME_COLUMN, column('Controller', 'string', 'Controller that is responsible for handling this class'), column('Parameters', 'string', 'A reference to a resource with additional parameters'), AGE_COLUMN],
  (c, now) => {
    const p = c.spec?.parameters;
    const params = p ? `${p.apiGroup ? `${str(p.kind)}.${str(p.apiGroup)}` : str(p.kind)}/${str(p.name)}` : '<none>';
    return [str(c.metadata?.name), str(c.spec?.controller), params, translateTimestampSince(c.metadata?.creationTimestamp, now)];
  },
);

/** printers.go formatEndpoints: ip:port per address and port, the first three, "<none>" without subsets. */
export function formatEndpoints(ep: PrintableObject): string {
  const subsets = list(ep.subsets);
  if (subsets.length === 0) return '<none>';
  const all: string[] = [];
  for (const ss of subsets) {
    const addresses = list(ss?.addresses).map((a) => str(a?.ip));
    const ports = list(ss?.ports);
    if (ports.length === 0) all.push(...addresses);
    else for (const p of ports) for (const ip of addresses) all.push(ip.includes(':') ? `[${ip}]:${p?.port}` : `${ip}:${p?.port}`);
  }
  return capped(all, 3);
}

export const endpointsPrinter = printer(
  [NAME_COLUMN, column('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'), AGE_COLUMN],
  (ep, now) => [str(ep.metadata?.name), formatEndpoints(ep), translateTimestampSince(ep.metadata?.creationTimestamp, now)],
);

export const endpointSlicePrinter = printer(
  [
    NAME_COLUMN,
    column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
    column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
    column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
    AGE_COLUMN,
  ],
  (s, now) => {
    const ports = list(s.ports);
    const addresses = list(s.endpoints).flatMap((e) => list<string>(e?.addresses));
    return [
      str(s.metadata?.name), str(s.addressType),
      ports.length ? ports.map((p) => (typeof p?.port === 'number' ? String(p.port) : '<unset>')).join(',') : '<unset>',
      addresses.length ? capped(addresses, 3) : '<unset>', translateTimestampSince(s.metadata?.creationTimestamp, now),
    ];
  },
);
