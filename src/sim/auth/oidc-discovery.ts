// kube-apiserver's service account issuer discovery: /.well-known/openid-configuration and /openid/v1/jwks, so that
// anyone holding a sim's service account token can check its signature with the run's public key.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendObject } from '../respond.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';

export const OIDC_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** Answers the two discovery paths; false for any other path. */
export function handleOidcDiscovery(req: IncomingMessage, res: ServerResponse, path: string, tokens: ServiceAccountTokens): boolean {
  const p = path.endsWith('/') ? path.slice(0, -1) : path;
  if (p === OIDC_CONFIGURATION_PATH) {
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    sendObject(res, 200, {
      issuer: tokens.issuer,
      jwks_uri: `${scheme}://${req.headers.host ?? 'localhost'}${JWKS_PATH}`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    return true;
  }
  if (p === JWKS_PATH) {
    sendObject(res, 200, { keys: [tokens.publicJwk()] }, { 'Content-Type': 'application/jwk-set+json' });
    return true;
  }
  return false;
}
