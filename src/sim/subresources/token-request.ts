// POST serviceaccounts/{name}/token (authentication.k8s.io/v1 TokenRequest, `kubectl create token`), as kube 1.32's
// TokenREST: the service account must exist; audiences default to the API server's, the lifetime to an hour (at least
// ten minutes, at most 2^32 seconds); a token may be bound to a Pod or Secret that exists. Answers 201 with the token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceAccountTokens } from '../auth/service-account-tokens.js';
import { kubeTime } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import { sendObject } from '../respond.js';
import type { SimStore } from '../store.js';
import { badRequest, conflict, invalid, notFound } from '../status.js';
import { readSubresourceBody } from './request-body.js';

type Json = Record<string, any>;

const DEFAULT_SECONDS = 3600;
const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;

export async function handleTokenRequest(store: SimStore, tokens: ServiceAccountTokens, req: IncomingMessage, res: ServerResponse, serviceAccounts: ResourceType, namespace: string, name: string, now: () => number = Date.now): Promise<void> {
  const body = await readSubresourceBody(req, 'TokenRequest');
  const spec: Json = body.spec ?? {};
  // What Go's decoder refuses before anything else runs.
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null && typeof spec.expirationSeconds !== 'number') {
    throw badRequest(`json: cannot unmarshal ${typeof spec.expirationSeconds} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`);
  }
  const meta: Json = body.metadata ?? {};
  if (meta.name && meta.name !== name) throw badRequest(`name mismatch, ${meta.name} != ${name}`);
  if (meta.namespace && meta.namespace !== namespace) throw badRequest(`namespace mismatch, ${meta.namespace} != ${namespace}`);
  const sa = store.getStored(serviceAccounts, namespace, name);
  if (!sa) throw notFound('serviceaccounts', '', name);

  const seconds = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? DEFAULT_SECONDS : spec.expirationSeconds;
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS) throw invalidRequest(name, seconds, 'may not specify a duration less than 10 minutes');
  if (seconds > MAX_SECONDS) throw invalidRequest(name, seconds, 'may not specify a duration larger than 2^32 seconds');
  const audiences: string[] = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : tokens.apiAudiences;
  const ref = spec.boundObjectRef as Json | undefined | null;
  const boundObject = ref ? boundTo(store, namespace, ref) : undefined;

  const nowMs = now();
  const { claims, token } = tokens.issue({ namespace, name, uid: sa.meta.uid, boundObject }, audiences, seconds, nowMs);
  sendObject(res, 201, {
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: kubeTime(new Date(nowMs)) },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: kubeTime(new Date(claims.exp * 1000)) },
  });
}

function invalidRequest(name: string, seconds: number, detail: string): ReturnType<typeof invalid> {
  return invalid('TokenRequest', 'authentication.k8s.io', name, [{ field: 'spec.expirationSeconds', type: 'Invalid value', value: seconds, detail }]);
}

/** The Pod or Secret a token is bound to: it must exist (404) and, when the reference names a uid, be that one (409). */
function boundTo(store: SimStore, namespace: string, ref: Json): { kind: 'Pod' | 'Secret'; name: string; uid: string } {
  const kind = String(ref.kind ?? '');
  const apiVersion = String(ref.apiVersion ?? '');
  if ((kind !== 'Pod' && kind !== 'Secret') || apiVersion !== 'v1') throw badRequest(`cannot bind token for object of type ${apiVersion === 'v1' ? '/v1' : apiVersion}, Kind=${kind}`);
  const resource = kind === 'Pod' ? 'pods' : 'secrets';
  const name = String(ref.name ?? '');
  const type = store.registry.lookup('', 'v1', resource)!;
  const o = store.getStored(type, namespace, name);
  if (!o) throw notFound(resource, '', name);
  if (ref.uid && ref.uid !== o.meta.uid) throw conflict(kind, '', name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  return { kind, name, uid: o.meta.uid };
}
