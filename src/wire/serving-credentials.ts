// What an HTTPS server on loopback (the TLS sim's, kwatch's endpoint's) presents: a CA made for this run and the server
// certificate it signs for the given hosts. The CA's certificate goes into the kubeconfig clients use.
import { issueCertificate, type KeyPair } from './certificates.js';

export interface ServingCredentials {
  caPem: string;
  server: { certPem: string; keyPem: string };
}

/** A fresh CA and server certificate; `ca` (its key included) signs whatever else the caller needs, e.g. client certificates. */
export function createServingCredentials(hosts: string[]): ServingCredentials & { ca: KeyPair } {
  const ca = issueCertificate({ subject: { commonName: 'kwatch-sim-ca' }, usage: 'ca' });
  const server = issueCertificate({ subject: { commonName: 'kwatch-sim' }, usage: 'server', issuer: ca, hosts });
  return { ca, caPem: ca.certPem, server: { certPem: server.certPem, keyPem: server.keyPem } };
}
