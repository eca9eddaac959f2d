// Which cluster IPs and node ports the stored Services hold, kept current from the store's commits (one parse per
// Service write), so allocating for a new Service never re-reads every Service — as kube's allocators keep bitmaps.
import type { SimObject, SimResourceRef } from '../api.js';
import type { Change } from '../history.js';
import type { ResourceType } from '../registry.js';

/** What the other Services hold. */
export interface TakenAddresses {
  hasIp(ip: string): boolean;
  hasNodePort(port: number): boolean;
}

interface Held { ips: string[]; nodePorts: number[] }

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function heldBy(service: SimObject | undefined): Held {
  const spec = service && isObject(service.spec) ? service.spec : {};
  const ips = (Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP]).filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None');
  const nodePorts = (Array.isArray(spec.ports) ? spec.ports : []).map((p) => (isObject(p) ? p.nodePort : undefined)).filter((p): p is number => typeof p === 'number');
  return { ips, nodePorts };
}

const keyOf = (m: { namespace?: string; name?: string }): string => `${m.namespace ?? ''}/${m.name ?? ''}`;

function count<K>(map: Map<K, number>, k: K, by: number): void {
  const n = (map.get(k) ?? 0) + by;
  if (n > 0) map.set(k, n); else map.delete(k);
}

export class ServiceAddressIndex {
  private readonly byService = new Map<string, Held>();
  private readonly ips = new Map<string, number>();
  private readonly nodePorts = new Map<number, number>();

  constructor(services: SimObject[]) {
    for (const s of services) this.set(keyOf(s.metadata), heldBy(s));
  }

  /** Follows one committed change of the services collection. */
  apply(change: Change): void {
    this.set(change.key, change.type === 'DELETED' ? undefined : heldBy(change.cur.obj));
  }

  /** The addresses held by every Service but `except` (the one being written). */
  taken(except: { metadata: { namespace?: string; name?: string } }): TakenAddresses {
    const own = this.byService.get(keyOf(except.metadata));
    return {
      hasIp: (ip) => (this.ips.get(ip) ?? 0) - (own?.ips.includes(ip) ? 1 : 0) > 0,
      hasNodePort: (port) => (this.nodePorts.get(port) ?? 0) - (own?.nodePorts.includes(port) ? 1 : 0) > 0,
    };
  }

  private set(key: string, held: Held | undefined): void {
    const old = this.byService.get(key);
    if (old) {
      for (const ip of old.ips) count(this.ips, ip, -1);
      for (const p of old.nodePorts) count(this.nodePorts, p, -1);
      this.byService.delete(key);
    }
    if (!held) return;
    this.byService.set(key, held);
    for (const ip of held.ips) count(this.ips, ip, 1);
    for (const p of held.nodePorts) count(this.nodePorts, p, 1);
  }
}

const SERVICES: SimResourceRef = { group: '', version: 'v1', resource: 'services' };

/** An index of `store`'s Services that its commits keep current. */
export function indexServices(store: { list(ref: SimResourceRef): SimObject[]; onCommit(l: (c: Change, type: ResourceType) => void): () => void }): ServiceAddressIndex {
  const index = new ServiceAddressIndex(store.list(SERVICES));
  store.onCommit((c, type) => { if (type.group === '' && type.resource === 'services') index.apply(c); });
  return index;
}
