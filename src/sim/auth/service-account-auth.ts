// The service-account token authenticator: a token the sim signed, unexpired, for one of the wanted audiences, whose
// service account (and bound pod or secret) still exists with the uid in the token, is that service account, in the
// groups system:serviceaccounts, system:serviceaccounts:<namespace> and system:authenticated.
import type { SimStore } from '../store.js';
import { AUTHENTICATED, type UserInfo } from './authenticate.js';
import type { ServiceAccountTokens, TokenClaims } from './service-account-tokens.js';

export type TokenReviewResult = { user: UserInfo; audiences: string[] } | { error: string };

const INVALIDATED = 'service account token has been invalidated';

export class ServiceAccountAuthenticator {
  constructor(private readonly tokens: ServiceAccountTokens, private readonly store: SimStore, private readonly now: () => number = Date.now) {}

  /** What a TokenReview answers; undefined when the token is not a service account token of this sim. */
  review(token: string, audiences: readonly string[] = this.tokens.apiAudiences): TokenReviewResult | undefined {
    const verified = this.tokens.verify(token, audiences, this.now());
    if (!verified || 'error' in verified) return verified;
    const { claims } = verified;
    const k = claims['kubernetes.io'];
    if (!this.exists('serviceaccounts', k.namespace, k.serviceaccount.name, k.serviceaccount.uid)) return { error: INVALIDATED };
    if (k.pod && !this.exists('pods', k.namespace, k.pod.name, k.pod.uid)) return { error: INVALIDATED };
    if (k.secret && !this.exists('secrets', k.namespace, k.secret.name, k.secret.uid)) return { error: INVALIDATED };
    return { user: userOf(claims), audiences: claims.aud.filter((a) => audiences.includes(a)) };
  }

  /** For request authentication: the user, or undefined (401). */
  readonly authenticate = (token: string): UserInfo | undefined => {
    const r = this.review(token);
    return r && 'user' in r ? r.user : undefined;
  };

  private exists(resource: string, namespace: string, name: string, uid: string): boolean {
    const type = this.store.registry.lookup('', 'v1', resource);
    const o = type && this.store.getStored(type, namespace, name);
    return o !== undefined && o.meta.uid === uid;
  }
}

function userOf(claims: TokenClaims): UserInfo {
  const k = claims['kubernetes.io'];
  const extra: Record<string, string[]> = { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] };
  if (k.pod) {
    extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
  }
  return {
    name: claims.sub,
    uid: k.serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`, AUTHENTICATED],
    extra,
  };
}
