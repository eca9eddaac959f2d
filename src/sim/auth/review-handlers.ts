// POST of the review kinds, answered from the authorizer and authenticators the sim uses for its own requests, as
// kube-apiserver's pkg/registry/authorization and authentication do: SelfSubjectAccessReview, SubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview (`kubectl auth whoami`) and TokenReview.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceType } from '../registry.js';
import { sendObject } from '../respond.js';
import { badRequest, invalid, type FieldError } from '../status.js';
import { readSubresourceBody } from '../subresources/request-body.js';
import type { UserInfo } from './authenticate.js';
import type { Authorizer, RequestAttributes } from './authorize.js';
import type { PolicyRule } from './rbac.js';
import type { TokenReviewResult } from './service-account-auth.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';

type Json = Record<string, any>;

/** What the review handlers and TokenRequest answer from. */
export interface AuthServices {
  authorizer: Authorizer;
  tokens: ServiceAccountTokens;
  /** The clock tokens are issued and checked by. */
  now: () => number;
  /** TokenReview: every token authenticator of the sim; undefined when none knows the token. */
  reviewToken(token: string, audiences: string[] | undefined): TokenReviewResult | undefined;
}

export async function handleReview(auth: AuthServices, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, user: UserInfo): Promise<void> {
  const body = await readSubresourceBody(req, type.kind);
  const review: Json = { ...body, kind: type.kind, apiVersion: `${type.group}/${type.version}`, metadata: body.metadata ?? { creationTimestamp: null } };
  const spec: Json = review.spec ?? {};
  switch (type.kind) {
    case 'SelfSubjectAccessReview':
      checkAttributes(type, spec);
      review.status = accessStatus(auth.authorizer, user, spec);
      break;
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview': {
      checkAttributes(type, spec);
      if (!spec.user && !(Array.isArray(spec.groups) && spec.groups.length)) throw invalidReview(type, [{ field: 'spec.user', type: 'Invalid value', value: spec.user ?? '', detail: 'at least one of user or group must be specified' }]);
      if (type.kind === 'LocalSubjectAccessReview') {
        if (spec.nonResourceAttributes) throw invalidReview(type, [{ field: 'spec.nonResourceAttributes', type: 'Invalid value', goValue: goAttributes(spec.nonResourceAttributes), detail: 'disallowed on this kind of request' }]);
        if (spec.resourceAttributes.namespace !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
      }
      const subject: UserInfo = { name: String(spec.user ?? ''), groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [], ...(spec.uid ? { uid: String(spec.uid) } : {}), ...(spec.extra ? { extra: spec.extra } : {}) };
      review.status = accessStatus(auth.authorizer, subject, spec);
      break;
    }
    case 'SelfSubjectRulesReview': {
      if (!spec.namespace) throw badRequest('no namespace on request');
      const { rules, errors } = auth.authorizer.rulesFor(user, String(spec.namespace));
      review.status = {
        resourceRules: rules.filter((r) => r.resources?.length).map(resourceRule),
        nonResourceRules: rules.filter((r) => r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
        incomplete: errors.length > 0,
        ...(errors.length ? { evaluationError: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` } : {}),
      };
      break;
    }
    case 'SelfSubjectReview':
      review.status = { userInfo: userInfo(user) };
      break;
    case 'TokenReview': {
      if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
      const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : undefined;
      const r = auth.reviewToken(String(spec.token), audiences);
      review.status = !r ? { user: {} } : 'error' in r ? { user: {}, error: r.error } : { authenticated: true, user: userInfo(r.user), audiences: r.audiences };
      break;
    }
    default:
      throw badRequest(`${type.kind} is not a review the sim answers`);
  }
  sendObject(res, 201, review);
}

/** kube's ValidateSelfSubjectAccessReviewSpec: exactly one of resourceAttributes and nonResourceAttributes. */
function checkAttributes(type: ResourceType, spec: Json): void {
  const r = spec.resourceAttributes, n = spec.nonResourceAttributes;
  // What Go's decoder refuses before validation runs.
  const specType = type.kind === 'SelfSubjectAccessReview' ? 'SelfSubjectAccessReviewSpec' : 'SubjectAccessReviewSpec';
  for (const [field, value, goType] of [['resourceAttributes', r, 'ResourceAttributes'], ['nonResourceAttributes', n, 'NonResourceAttributes']] as const) {
    if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw badRequest(`json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go struct field ${specType}.spec.${field} of type v1.${goType}`);
    }
  }
  if (r && n) throw invalidReview(type, [{ field: 'spec.nonResourceAttributes', type: 'Invalid value', goValue: goAttributes(n), detail: 'cannot be specified in combination with resourceAttributes' }]);
  if (!r && !n) throw invalidReview(type, [{ field: 'spec.resourceAttributes', type: 'Invalid value', goValue: 'null', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' }]);
}

function goAttributes(n: Json): string {
  return `&authorization.NonResourceAttributes{Path:${JSON.stringify(n.path ?? '')}, Verb:${JSON.stringify(n.verb ?? '')}}`;
}

function invalidReview(type: ResourceType, errs: FieldError[]): ReturnType<typeof invalid> {
  return invalid(type.kind, type.group, '', errs);
}

function accessStatus(authorizer: Authorizer, user: UserInfo, spec: Json): Json {
  const d = authorizer.authorize(user, attributesOf(spec));
  return { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) };
}

function attributesOf(spec: Json): RequestAttributes {
  const n = spec.nonResourceAttributes as Json | undefined;
  if (n) return { resourceRequest: false, verb: String(n.verb ?? ''), path: String(n.path ?? '') };
  const r = spec.resourceAttributes as Json;
  const str = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));
  return { resourceRequest: true, verb: String(r.verb ?? ''), group: String(r.group ?? ''), resource: String(r.resource ?? ''), subresource: str(r.subresource), namespace: str(r.namespace), name: str(r.name) };
}

function resourceRule(r: PolicyRule): Json {
  return { verbs: r.verbs, ...(r.apiGroups?.length ? { apiGroups: r.apiGroups } : {}), ...(r.resources?.length ? { resources: r.resources } : {}), ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) };
}

function userInfo(u: UserInfo): Json {
  return { username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}) };
}
