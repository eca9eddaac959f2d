// Serves /openapi/v2 (JSON or gnostic protobuf, by Accept) and /openapi/v3 (the index of group-versions, each with its
// content hash, and one document per group-version). Documents are built on first request and kept until the
// registry changes (a CRD written or removed), so they cost nothing on the rest of the server's requests.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceRegistry } from '../registry.js';
import { sendJson } from '../respond.js';
import { notAcceptable } from '../status.js';
import { SimApiError } from '../api.js';
import { allServedTypes } from './definitions.js';
import { v2Document, v3Document } from './documents.js';
import { encodeV2Protobuf } from './v2-protobuf.js';
import type { KubeVersion } from '../kube-version.js';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function hash(s: string | Buffer): string {
  return createHash('sha512').update(s).digest('hex').toUpperCase();
}

interface Built { body: string; hash: string }

/** The serialized documents of one registry generation. */
class DocumentCache {
  private generation = -1;
  private v3 = new Map<string, Built>();
  private v2json?: Built;
  private v2pb?: { body: Buffer; hash: string };

  constructor(private readonly registry: ResourceRegistry, private readonly release: KubeVersion) {}

  private fresh(): void {
    if (this.generation === this.registry.generation) return;
    this.generation = this.registry.generation;
    this.v3.clear();
    this.v2json = undefined;
    this.v2pb = undefined;
  }

  v3Doc(group: string, version: string): Built | undefined {
    this.fresh();
    const key = gvPath(group, version);
    let b = this.v3.get(key);
    if (!b) {
      const types = this.registry.resourcesOf(group, version);
      if (types.length === 0) return undefined;
      const body = JSON.stringify(v3Document(types, this.release));
      b = { body, hash: hash(body) };
      this.v3.set(key, b);
    }
    return b;
  }

  v2Json(): Built {
    this.fresh();
    if (!this.v2json) { const body = JSON.stringify(v2Document(allServedTypes(this.registry), this.release)); this.v2json = { body, hash: hash(body) }; }
    return this.v2json;
  }

  v2Protobuf(): { body: Buffer; hash: string } {
    this.fresh();
    if (!this.v2pb) { const body = encodeV2Protobuf(v2Document(allServedTypes(this.registry), this.release)); this.v2pb = { body, hash: hash(body) }; }
    return this.v2pb;
  }
}

const caches = new WeakMap<ResourceRegistry, DocumentCache>();

/** The documents of a registry; `release` (whose definitions and info.version they carry) is fixed at the first call. */
function cacheOf(registry: ResourceRegistry, release: KubeVersion): DocumentCache {
  let c = caches.get(registry);
  if (!c) { c = new DocumentCache(registry, release); caches.set(registry, c); }
  return c;
}

const PROTO_V2 = ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'];
/** kube-openapi answers the protobuf form with a media type Go's mime parser accepts (no `@`). */
const PROTO_V2_RETURNED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** kube-openapi's negotiation for /openapi/v2: the first acceptable of JSON or protobuf; none acceptable is a 406. */
function v2Format(accept: string | undefined): 'json' | 'protobuf' | undefined {
  if (!accept || !accept.trim()) return 'json';
  for (const clause of accept.split(',')) {
    const [type, sub] = clause.split(';')[0].trim().toLowerCase().split('/');
    if (type === '*' || (type === 'application' && (sub === '*' || sub === 'json'))) return 'json';
    if (type === 'application' && PROTO_V2.includes(sub)) return 'protobuf';
  }
  return undefined;
}

function serveV2(req: IncomingMessage, res: ServerResponse, registry: ResourceRegistry, release: KubeVersion): void {
  const format = v2Format(req.headers.accept);
  if (!format) throw notAcceptable(`only the following media types are accepted: application/json, application/${PROTO_V2[0]}`);
  const cache = cacheOf(registry, release);
  const built = format === 'json' ? cache.v2Json() : cache.v2Protobuf();
  const etag = `"${built.hash}"`;
  if (req.headers['if-none-match'] === etag) { res.writeHead(304, { ETag: etag }); res.end(); return; }
  if (format === 'json') { sendJson(res, 200, built.body, { ETag: etag, Vary: 'Accept' }); return; }
  res.writeHead(200, { 'Content-Type': PROTO_V2_RETURNED, 'Content-Length': built.body.length, ETag: etag, Vary: 'Accept' });
  res.end(built.body);
}

/** Serves /openapi/v2, /openapi/v3 and /openapi/v3/{api/v1|apis/g/v}; returns false for other paths. */
export function handleOpenApi(req: IncomingMessage, res: ServerResponse, path: string, registry: ResourceRegistry, release: KubeVersion): boolean {
  if (path === '/openapi/v2') {
    try { serveV2(req, res, registry, release); } catch (err) {
      if (!(err instanceof SimApiError)) throw err;
      sendJson(res, err.status.code, JSON.stringify(err.status));
    }
    return true;
  }
  const cache = cacheOf(registry, release);
  if (path === '/openapi/v3' || path === '/openapi/v3/') {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const g of registry.groups()) {
      for (const v of g.versions) {
        const built = cache.v3Doc(g.name, v);
        if (built) paths[gvPath(g.name, v)] = { serverRelativeURL: `/openapi/v3/${gvPath(g.name, v)}?hash=${built.hash}` };
      }
    }
    sendJson(res, 200, JSON.stringify({ paths }));
    return true;
  }
  const m = /^\/openapi\/v3\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!m) return false;
  const built = cache.v3Doc(m[1] ? '' : m[2], m[1] ?? m[3]);
  if (!built) return false;
  sendJson(res, 200, built.body, { ETag: `"${built.hash}"`, 'Cache-Control': 'public, immutable' });
  return true;
}
