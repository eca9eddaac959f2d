// Service account tokens as kube-apiserver's TokenRequest issues them: ES256-signed JWTs (a P-256 key made for each sim
// run) carrying iss, sub, aud, exp/iat/nbf, jti and the kubernetes.io claims; and their validation, as the apiserver's
// service-account authenticator does it (signature, issuer, audience, time, and the service account still existing).
import { createHash, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';

/** kube's default --service-account-issuer and so its default --api-audiences. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface TokenSubject {
  namespace: string;
  name: string;
  uid: string;
  /** A Pod or Secret the token is bound to (it dies with it). */
  boundObject?: { kind: 'Pod' | 'Secret'; name: string; uid: string };
}

export interface TokenClaims {
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  iss: string;
  jti: string;
  sub: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    secret?: { name: string; uid: string };
  };
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

export class ServiceAccountTokens {
  private signingKey?: { privateKey: KeyObject; publicKey: KeyObject; keyId: string };

  constructor(readonly issuer = DEFAULT_ISSUER) {}

  /**
   * The run's key pair, made when a token is first issued or checked or the key asked for: most sim runs (every
   * `--sim` command) never do, and making it cost each start a few ms.
   */
  private get key(): { privateKey: KeyObject; publicKey: KeyObject; keyId: string } {
    if (this.signingKey) return this.signingKey;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    // As kube: the key id is the unpadded base64url SHA-256 of the public key's DER.
    const keyId = b64url(createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest());
    return (this.signingKey = { privateKey, publicKey, keyId });
  }

  /** Whether the key pair has been made (for tests: a run that signs nothing makes none). */
  get hasKey(): boolean {
    return this.signingKey !== undefined;
  }

  /** The public key as a JSON Web Key (what /openid/v1/jwks lists). */
  publicJwk(): Record<string, unknown> {
    const { publicKey, keyId } = this.key;
    return { use: 'sig', ...publicKey.export({ format: 'jwk' }), kid: keyId, alg: 'ES256' };
  }

  /** The audiences the API server itself accepts tokens for. */
  get apiAudiences(): string[] { return [this.issuer]; }

  issue(subject: TokenSubject, audiences: string[], expirationSeconds: number, nowMs: number): { token: string; claims: TokenClaims } {
    const now = Math.floor(nowMs / 1000);
    const bound = subject.boundObject;
    const claims: TokenClaims = {
      aud: audiences,
      exp: now + expirationSeconds,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: subject.namespace,
        ...(bound?.kind === 'Pod' ? { pod: { name: bound.name, uid: bound.uid } } : {}),
        ...(bound?.kind === 'Secret' ? { secret: { name: bound.name, uid: bound.uid } } : {}),
        serviceaccount: { name: subject.name, uid: subject.uid },
      },
      nbf: now,
      sub: `system:serviceaccount:${subject.namespace}:${subject.name}`,
    };
    const { privateKey, keyId } = this.key;
    const header = b64url(JSON.stringify({ alg: 'ES256', kid: keyId }));
    const payload = b64url(JSON.stringify(claims));
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return { token: `${header}.${payload}.${b64url(signature)}`, claims };
  }

  /**
   * The claims of a token this sim signed and that is valid now for one of `audiences`, or why not. `undefined`
   * when the token is not a JWT of this issuer at all (another authenticator may know it).
   */
  verify(token: string, audiences: readonly string[], nowMs: number): { claims: TokenClaims } | { error: string } | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    let header: { alg?: string; kid?: string };
    let claims: TokenClaims;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      return undefined;
    }
    if (typeof claims !== 'object' || claims === null || claims.iss !== this.issuer) return undefined;
    const signature = Buffer.from(parts[2], 'base64url');
    const signed = header.alg === 'ES256' && signature.length === 64
      && verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: this.key.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    if (!signed) return { error: 'invalid signature' };
    const now = Math.floor(nowMs / 1000);
    if (typeof claims.exp !== 'number' || now >= claims.exp) return { error: 'service account token has expired' };
    if (typeof claims.nbf === 'number' && now < claims.nbf) return { error: 'service account token is not valid yet' };
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.some((a) => audiences.includes(a))) return { error: 'token audiences does not match API server audiences' };
    if (typeof claims.sub !== 'string' || typeof claims['kubernetes.io']?.serviceaccount?.name !== 'string') return { error: 'service account token claims are incomplete' };
    return { claims };
  }
}
