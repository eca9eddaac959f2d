// The credentials of one TLS sim run, made fresh at startup: a CA, the server's certificate, and with users an admin
// client certificate (CN=admin, O=system:masters) and a namespace-scoped user's bearer token.
import { randomBytes } from 'node:crypto';
import { issueCertificate } from '../../wire/certificates.js';
import { createServingCredentials } from '../../wire/serving-credentials.js';

export interface SimUsers {
  admin: { name: string; certPem: string; keyPem: string };
  /** Bound to `namespace`: every verb on every resource there, discovery elsewhere, nothing else. */
  dev: { name: string; token: string; namespace: string };
}

export interface SimCredentials {
  caPem: string;
  server: { certPem: string; keyPem: string };
  users?: SimUsers;
}

export const ADMIN_USER = 'admin';
export const MASTERS_GROUP = 'system:masters';
export const DEV_USER = 'dev';

export function createSimCredentials(opts: { hosts: string[]; users: boolean; devNamespace?: string }): SimCredentials {
  const { ca, caPem, server } = createServingCredentials(opts.hosts);
  const out: SimCredentials = { caPem, server };
  if (opts.users) {
    const admin = issueCertificate({ subject: { commonName: ADMIN_USER, organizations: [MASTERS_GROUP] }, usage: 'client', issuer: ca });
    out.users = {
      admin: { name: ADMIN_USER, certPem: admin.certPem, keyPem: admin.keyPem },
      dev: { name: DEV_USER, token: randomBytes(24).toString('base64url'), namespace: opts.devNamespace ?? 'dev' },
    };
  }
  return out;
}
