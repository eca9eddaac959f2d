// Issues X.509 certificates (the TLS sim's and the endpoint's: a CA, a server certificate, client certificates) with
// node:crypto's ECDSA P-256 keys and signatures and the DER encoder beside this file, so that neither openssl nor a
// package is needed.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import * as der from './der.js';

export interface Subject {
  commonName: string;
  /** O= entries: kube reads them as the user's groups. */
  organizations?: string[];
}

export interface KeyPair {
  certPem: string;
  keyPem: string;
  subject: Subject;
  key: KeyObject;
  keyId: Buffer;
}

export interface CertificateRequest {
  subject: Subject;
  /** 'ca' is self-signed; the others need `issuer`. */
  usage: 'ca' | 'server' | 'client';
  issuer?: KeyPair;
  /** Subject alternative names of a server certificate: DNS names and IP addresses. */
  hosts?: string[];
  validDays?: number;
}

const OID = {
  ecPublicKeySha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyId: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

/** keyUsage bits (RFC 5280 4.2.1.3). */
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

export function issueCertificate(req: CertificateRequest): KeyPair {
  if (req.usage !== 'ca' && !req.issuer) throw new Error(`a ${req.usage} certificate needs an issuer`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = createHash('sha1').update(spki).digest();
  const signer = req.issuer ?? { subject: req.subject, key: privateKey, keyId };
  const now = Date.now();
  const algorithm = der.sequence(der.oid(OID.ecPublicKeySha256));
  const serial = randomBytes(16);
  serial[0] &= 0x7f;

  const extensions = [
    extension(OID.basicConstraints, true, req.usage === 'ca' ? der.sequence(der.boolean(true)) : der.sequence()),
    extension(OID.keyUsage, true, der.namedBits(req.usage === 'ca' ? [DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN] : [DIGITAL_SIGNATURE])),
    extension(OID.subjectKeyId, false, der.octetString(keyId)),
    extension(OID.authorityKeyId, false, der.sequence(der.implicit(0, signer.keyId))),
  ];
  if (req.usage !== 'ca') extensions.push(extension(OID.extKeyUsage, false, der.sequence(der.oid(req.usage === 'server' ? OID.serverAuth : OID.clientAuth))));
  if (req.hosts?.length) extensions.push(extension(OID.subjectAltName, false, der.sequence(...req.hosts.map(generalName))));

  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)), // v3
    der.unsignedInteger(serial),
    algorithm,
    name(signer.subject),
    // An hour of slack for clocks that disagree.
    der.sequence(der.time(new Date(now - 3_600_000)), der.time(new Date(now + (req.validDays ?? 365) * 86_400_000))),
    name(req.subject),
    spki,
    der.explicit(3, der.sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, signer.key);
  const cert = der.sequence(tbs, algorithm, der.bitString(signature));
  return { certPem: pem('CERTIFICATE', cert), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, subject: req.subject, key: privateKey, keyId };
}

function name(s: Subject): Buffer {
  const rdn = (type: string, value: string) => der.set(der.sequence(der.oid(type), der.utf8String(value)));
  return der.sequence(...(s.organizations ?? []).map((o) => rdn(OID.organization, o)), rdn(OID.commonName, s.commonName));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.oid(id), ...(critical ? [der.boolean(true)] : []), der.octetString(value));
}

/** dNSName [2] or iPAddress [7] (4 or 16 bytes). */
function generalName(host: string): Buffer {
  const family = isIP(host);
  if (family === 4) return der.implicit(7, Buffer.from(host.split('.').map(Number)));
  if (family === 6) return der.implicit(7, ipv6Bytes(host));
  return der.implicit(2, Buffer.from(host, 'ascii'));
}

function ipv6Bytes(host: string): Buffer {
  const [head, tail = ''] = host.split('::');
  const parts = (s: string) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const h = parts(head);
  const t = host.includes('::') ? parts(tail) : [];
  const words = [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  words.forEach((w, i) => out.writeUInt16BE(w, i * 2));
  return out;
}

function pem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
