// Endpoints and EndpointSlice addresses as kube validates them: no unspecified, loopback or link-local address
// (pkg/apis/core/validation ValidateNonSpecialIP, used by validateEndpointAddress for Endpoints subsets and by
// pkg/apis/discovery/validation validateEndpoints for IPv4/IPv6 slices), so what a cluster refuses the sim refuses.
import { isIP } from 'node:net';
import type { FieldError } from '../status.js';

type Json = Record<string, any>;

/** The 16 bytes of an IPv6 address, or an IPv4 address as its IPv4-mapped form (as Go's net.IP holds it). */
function ipBytes(ip: string): number[] | undefined {
  const v = isIP(ip);
  if (v === 4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip.split('.').map(Number)];
  if (v !== 6) return undefined;
  let text = ip;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) { tail.push(...dotted[1].split('.').map(Number)); text = text.slice(0, -dotted[1].length) + '0:0'; }
  const [head, rest] = text.split('::');
  const groups = (s: string | undefined): number[] => (s ? s.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? h : [...h, ...new Array(8 - h.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** ValidateNonSpecialIP's errors for one address (Go's net.IP classification: IPv4-mapped addresses count as IPv4). */
export function nonSpecialIPErrors(ip: string, field: string): FieldError[] {
  const b = ipBytes(ip);
  if (!b) return [{ field, type: 'Invalid value', value: ip, detail: 'must be a valid IP address' }];
  const v4 = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  const errs: FieldError[] = [];
  const add = (detail: string): void => { errs.push({ field, type: 'Invalid value', value: ip, detail }); };
  if (v4 ? b.slice(12).every((x) => x === 0) : b.every((x) => x === 0)) add(`may not be unspecified (${ip})`);
  if (v4 ? b[12] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1) add('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if (v4 ? b[12] === 169 && b[13] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80) add('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if (v4 ? b[12] === 224 && b[13] === 0 && b[14] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02) add('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return errs;
}

/** Endpoints: every subsets[i].addresses[j].ip and notReadyAddresses[j].ip. */
export function endpointsAddressErrors(obj: Json): FieldError[] {
  const errs: FieldError[] = [];
  const subsets = Array.isArray(obj.subsets) ? obj.subsets : [];
  subsets.forEach((s: Json, i: number) => {
    for (const list of ['addresses', 'notReadyAddresses']) {
      const addrs = Array.isArray(s?.[list]) ? s[list] : [];
      addrs.forEach((a: Json, j: number) => errs.push(...nonSpecialIPErrors(String(a?.ip ?? ''), `subsets[${i}].${list}[${j}].ip`)));
    }
  });
  return errs;
}

/** EndpointSlice: endpoints[i].addresses[j] of an IPv4 or IPv6 slice (FQDN slices hold names). */
export function endpointSliceAddressErrors(obj: Json): FieldError[] {
  const family = obj.addressType === 'IPv4' ? 4 : obj.addressType === 'IPv6' ? 6 : 0;
  if (!family) return [];
  const errs: FieldError[] = [];
  const endpoints = Array.isArray(obj.endpoints) ? obj.endpoints : [];
  endpoints.forEach((e: Json, i: number) => {
    const addrs = Array.isArray(e?.addresses) ? e.addresses : [];
    addrs.forEach((a: unknown, j: number) => {
      const field = `endpoints[${i}].addresses[${j}]`;
      const ip = String(a);
      // IsValidIPv4Address / IsValidIPv6Address first; only a valid address of the family is checked further.
      if (isIP(ip) !== family) errs.push({ field, type: 'Invalid value', value: ip, detail: `must be a valid IPv${family} address` });
      else errs.push(...nonSpecialIPErrors(ip, field));
    });
  });
  return errs;
}
