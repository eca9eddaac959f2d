// Services: core/v1 SetDefaults_Service on every write, then what the service registry does on create and update —
// cluster IPs from 10.96.0.0/12 (single-stack IPv4) and node ports from 30000-32767, each unique, kept across
// updates that leave them out (kube's patchAllocatedValues), with kube's 422s for a taken or out-of-range value.
import { randomInt } from 'node:crypto';
import type { SimObject } from '../api.js';
import { invalid, type FieldError } from '../status.js';
import type { TakenAddresses } from './service-addresses.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

export const SERVICE_CIDR = '10.96.0.0/12';
const NET_BASE = (10 << 24) | (96 << 16);
const NET_SIZE = 1 << 20;
/** kube keeps the lowest addresses (min(max(16, size/16), 256)) for static allocation; dynamic picks come from above. */
const STATIC_BAND = 256;
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

const ipString = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

function ipNumber(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}


const externallyAccessible = (spec: Json): boolean => spec.type === 'NodePort' || spec.type === 'LoadBalancer' || (Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
const needsNodePorts = (spec: Json): boolean => spec.type === 'NodePort' || spec.type === 'LoadBalancer';
/**
 * kube's shouldAllocateNodePorts (pkg/registry/core/service/storage/alloc.go): a LoadBalancer with
 * allocateLoadBalancerNodePorts false gets no node port for a port that names none (one it names is still checked).
 */
const allocatesNodePorts = (spec: Json): boolean => spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);

/** SetDefaults_Service (every write). */
export function defaultServiceSpec(spec: unknown): Json {
  const s: Json = isObject(spec) ? { ...spec } : {};
  s.sessionAffinity ||= 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  else if (s.sessionAffinity === 'ClientIP' && !isObject(s.sessionAffinityConfig)) s.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  s.type ||= 'ClusterIP';
  if (Array.isArray(s.ports)) {
    s.ports = s.ports.map((p) => {
      if (!isObject(p)) return p;
      const q: Json = { ...p };
      q.protocol ||= 'TCP';
      if (q.targetPort === undefined || q.targetPort === 0 || q.targetPort === '') q.targetPort = q.port;
      return q;
    });
  }
  if (externallyAccessible(s)) s.externalTrafficPolicy ||= 'Cluster';
  if (s.internalTrafficPolicy === undefined && s.type !== 'ExternalName') s.internalTrafficPolicy = 'Cluster';
  if (s.type === 'LoadBalancer') s.allocateLoadBalancerNodePorts ??= true;
  return s;
}

/** Keeps what the stored service had allocated when an update leaves it out (kubectl apply, a PUT of an old copy). */
function keepAllocated(spec: Json, prev: Json): void {
  if (spec.type === 'ExternalName') return;
  if (!spec.clusterIP && prev.clusterIP) {
    spec.clusterIP = prev.clusterIP;
    if (spec.clusterIPs === undefined) spec.clusterIPs = prev.clusterIPs;
  }
  spec.ipFamilies ??= prev.ipFamilies;
  spec.ipFamilyPolicy ??= prev.ipFamilyPolicy;
  if (!needsNodePorts(spec) || !Array.isArray(spec.ports) || !Array.isArray(prev.ports)) return;
  const old = prev.ports as Json[];
  spec.ports = (spec.ports as Json[]).map((p) => {
    if (!isObject(p) || p.nodePort) return p;
    const match = old.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
    return match?.nodePort ? { ...p, nodePort: match.nodePort } : p;
  });
}

function allocateIp(taken: TakenAddresses): string {
  for (;;) {
    const ip = ipString((NET_BASE + STATIC_BAND + randomInt(NET_SIZE - STATIC_BAND - 1)) >>> 0);
    if (!taken.hasIp(ip)) return ip;
  }
}

function allocateNodePort(taken: (port: number) => boolean): number {
  for (;;) {
    const port = NODE_PORT_MIN + randomInt(NODE_PORT_MAX - NODE_PORT_MIN + 1);
    if (!taken(port)) return port;
  }
}

/** The cluster IP a client asked for, checked as the allocator checks it. */
function checkRequestedIp(ip: string, taken: TakenAddresses): string | undefined {
  const n = ipNumber(ip);
  if (n === undefined || n < NET_BASE || n >= NET_BASE + NET_SIZE) return `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`;
  if (taken.hasIp(ip)) return `failed to allocate IP ${ip}: provided IP is already allocated`;
  return undefined;
}

/**
 * Allocation on create (prev undefined) and update: fills clusterIP(s), ipFamilies, ipFamilyPolicy and node ports.
 * `taken` lists the other services' allocations. Throws kube's 422 for a requested value that cannot be had.
 */
export function allocateServiceAddresses(service: SimObject, prev: SimObject | undefined, taken: () => TakenAddresses): void {
  const spec = service.spec as Json;
  if (prev && isObject(prev.spec)) keepAllocated(spec, prev.spec);
  if (spec.type === 'ExternalName') return;
  const errs: FieldError[] = [];
  let used: TakenAddresses | undefined;
  const others = (): TakenAddresses => (used ??= taken());
  const prevIp = prev && isObject(prev.spec) ? prev.spec.clusterIP : undefined;
  if (!spec.clusterIP && Array.isArray(spec.clusterIPs) && typeof spec.clusterIPs[0] === 'string') spec.clusterIP = spec.clusterIPs[0];
  if (!spec.clusterIP) {
    spec.clusterIP = allocateIp(others());
  } else if (spec.clusterIP !== 'None' && spec.clusterIP !== prevIp) {
    const err = checkRequestedIp(String(spec.clusterIP), others());
    if (err) errs.push({ field: 'spec.clusterIPs', type: 'Invalid value', goValue: `[]string{${JSON.stringify(spec.clusterIP)}}`, detail: err });
  }
  if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) spec.clusterIPs = [spec.clusterIP];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (needsNodePorts(spec) && Array.isArray(spec.ports)) {
    const prevPorts = new Set<number>();
    if (prev && isObject(prev.spec) && Array.isArray(prev.spec.ports)) for (const p of prev.spec.ports as Json[]) if (typeof p.nodePort === 'number') prevPorts.add(p.nodePort);
    const mine = new Set<number>();
    const allocates = allocatesNodePorts(spec);
    spec.ports = (spec.ports as unknown[]).map((p, i) => {
      if (!isObject(p)) return p;
      if (!p.nodePort) {
        if (!allocates) return p;
        const port = allocateNodePort((p) => others().hasNodePort(p) || mine.has(p));
        mine.add(port);
        return { ...p, nodePort: port };
      }
      const port = Number(p.nodePort);
      if (!prevPorts.has(port)) {
        if (port < NODE_PORT_MIN || port > NODE_PORT_MAX) errs.push({ field: `spec.ports[${i}].nodePort`, type: 'Invalid value', value: port, detail: `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}` });
        else if (others().hasNodePort(port)) errs.push({ field: `spec.ports[${i}].nodePort`, type: 'Invalid value', value: port, detail: 'provided port is already allocated' });
      }
      mine.add(port);
      return p;
    });
  }
  if (errs.length) throw invalid('Service', '', service.metadata.name ?? '', errs);
}
