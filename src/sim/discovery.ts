// Discovery documents: /version, legacy /api, /apis, /apis/{g}, per-group-version resource lists, and aggregated discovery (v2, v2beta1) with ETags.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { groupVersion, type ResourceRegistry, type ResourceType } from './registry.js';
import { sendJson, sendObject } from './respond.js';
import { DEFAULT_KUBE_VERSION, versionInfo, type KubeVersion } from './kube-version.js';

export const VERSION_INFO = {
  major: '1', minor: '32', gitVersion: 'v1.32.0', gitCommit: '70d3cc986aa8221cd1dfb1121852688902d3bf53', gitTreeState: 'clean',
  buildDate: '2024-12-11T17:59:15Z', goVersion: 'go1.23.3', compiler: 'gc', platform: 'linux/amd64',
};

const AGG_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGG_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** Which representation of /api or /apis an Accept header asks for, honouring its order (q-values ignored). */
export function negotiateDiscovery(accept: string | undefined): 'v2' | 'v2beta1' | 'legacy' {
  for (const part of (accept ?? '').split(',')) {
    const [base, ...rawParams] = part.split(';').map((s) => s.trim());
    const params = new Map(rawParams.map((p) => { const i = p.indexOf('='); return [p.slice(0, i).trim().toLowerCase(), p.slice(i + 1).trim()] as const; }));
    const type = base.toLowerCase();
    if (type === 'application/json' && params.get('as') === 'APIGroupDiscoveryList' && params.get('g') === 'apidiscovery.k8s.io') {
      if (params.get('v') === 'v2') return 'v2';
      if (params.get('v') === 'v2beta1') return 'v2beta1';
      continue;
    }
    if (params.has('as')) continue;
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return 'legacy';
  }
  return 'legacy';
}

function storageVersionHash(t: ResourceType): string {
  return createHash('sha256').update(`${t.group}/${t.version}/${t.kind}`).digest().subarray(0, 8).toString('base64');
}

export function legacyResources(types: ResourceType[]): object[] {
  const out: object[] = [];
  for (const t of types) {
    out.push({
      name: t.resource, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: t.verbs,
      ...(t.shortNames ? { shortNames: t.shortNames } : {}), ...(t.categories ? { categories: t.categories } : {}),
      storageVersionHash: storageVersionHash(t),
    });
    for (const s of t.subresources) {
      out.push({
        name: `${t.resource}/${s.name}`, singularName: '', namespaced: t.namespaced,
        ...(s.group !== undefined ? { group: s.group, version: s.version } : {}), kind: s.kind, verbs: s.verbs,
      });
    }
  }
  return out;
}

export function aggregatedResource(t: ResourceType): object {
  return {
    resource: t.resource,
    responseKind: { group: t.group, version: t.version, kind: t.kind },
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: t.verbs,
    ...(t.shortNames ? { shortNames: t.shortNames } : {}),
    ...(t.categories ? { categories: t.categories } : {}),
    ...(t.subresources.length ? {
      subresources: t.subresources.map((s) => ({ subresource: s.name, responseKind: { group: s.group ?? t.group, version: s.version ?? t.version, kind: s.kind }, verbs: s.verbs })),
    } : {}),
  };
}

interface CachedDoc { body: string; etag: string }

/** Serves the discovery endpoints; documents are rebuilt (and ETags change) whenever the registry's generation changes. */
export class Discovery {
  private cache = new Map<string, CachedDoc>();
  private cachedGen = -1;

  constructor(private readonly registry: ResourceRegistry, private readonly kubeVersion: KubeVersion = DEFAULT_KUBE_VERSION) {}

  private doc(key: string, build: () => object): CachedDoc {
    if (this.cachedGen !== this.registry.generation) { this.cache.clear(); this.cachedGen = this.registry.generation; }
    let d = this.cache.get(key);
    if (!d) {
      const body = JSON.stringify(build());
      d = { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
      this.cache.set(key, d);
    }
    return d;
  }

  /** Handles /version, /api, /apis, /api/v1, /apis/{g}, /apis/{g}/{v}; returns false if the path is none of them. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const segs = path.split('/').filter(Boolean);
    if (path === '/version' || path === '/version/') { sendObject(res, 200, versionInfo(this.kubeVersion)); return true; }
    if (segs[0] === 'api' && segs.length === 1) return this.root(req, res, 'api');
    if (segs[0] === 'apis' && segs.length === 1) return this.root(req, res, 'apis');
    if (segs[0] === 'api' && segs.length === 2) {
      if (segs[1] !== 'v1') return false;
      sendJson(res, 200, this.doc('/api/v1', () => ({ kind: 'APIResourceList', groupVersion: 'v1', resources: legacyResources(this.registry.resourcesOf('', 'v1')) })).body);
      return true;
    }
    if (segs[0] === 'apis' && (segs.length === 2 || segs.length === 3)) {
      const g = this.registry.groups().find((x) => x.name === segs[1] && x.name !== '');
      if (!g) return false;
      if (segs.length === 2) {
        sendJson(res, 200, this.doc(`/apis/${g.name}`, () => ({ kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g) })).body);
        return true;
      }
      if (!g.versions.includes(segs[2])) return false;
      const gv = `${g.name}/${segs[2]}`;
      sendJson(res, 200, this.doc(`/apis/${gv}`, () => ({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: legacyResources(this.registry.resourcesOf(g.name, segs[2])) })).body);
      return true;
    }
    return false;
  }

  private root(req: IncomingMessage, res: ServerResponse, which: 'api' | 'apis'): boolean {
    const form = negotiateDiscovery(req.headers.accept);
    if (form === 'legacy') {
      const doc = which === 'api'
        ? this.doc('/api', () => ({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: req.headers.host ?? '127.0.0.1' }] }))
        : this.doc('/apis', () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: this.registry.groups().filter((g) => g.name !== '').map(groupEntry) }));
      sendJson(res, 200, doc.body);
      return true;
    }
    const doc = this.doc(`/${which}@${form}`, () => this.aggregated(which, form));
    const headers = { 'Content-Type': form === 'v2' ? AGG_V2 : AGG_V2BETA1, ETag: doc.etag, Vary: 'Accept', 'Cache-Control': 'public' };
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, { ETag: doc.etag, Vary: 'Accept', 'Cache-Control': 'public' });
      res.end();
      return true;
    }
    sendJson(res, 200, doc.body, headers);
    return true;
  }

  private aggregated(which: 'api' | 'apis', form: 'v2' | 'v2beta1'): object {
    const groups = this.registry.groups().filter((g) => (which === 'api') === (g.name === ''));
    return {
      kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${form}`, metadata: {},
      items: groups.map((g) => ({
        metadata: g.name ? { name: g.name } : {},
        versions: g.versions.map((v) => ({ version: v, resources: this.registry.resourcesOf(g.name, v).map(aggregatedResource), freshness: 'Current' })),
      })),
    };
  }
}

export function groupEntry(g: { name: string; versions: string[] }): object {
  const versions = g.versions.map((v) => ({ groupVersion: groupVersion({ group: g.name, version: v }), version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}
