// Turns Node/undici network failures into ConnectionError with Go-style text ("dial tcp …: connect:
// connection refused"), the wording kubectl users recognise.
import { ConnectionError } from '../../informer/errors.js';

interface SysError extends Error {
  code?: string;
  errno?: number;
  address?: string;
  port?: number;
  hostname?: string;
  errors?: SysError[];
  cause?: unknown;
}

const DIAL: Record<string, string> = {
  ECONNREFUSED: 'connect: connection refused',
  EHOSTUNREACH: 'connect: no route to host',
  ENETUNREACH: 'connect: network is unreachable',
  ETIMEDOUT: 'i/o timeout',
  UND_ERR_CONNECT_TIMEOUT: 'i/o timeout',
  EADDRNOTAVAIL: 'connect: cannot assign requested address',
};

const X509 = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']);

/** The innermost error that carries a system/undici code. */
function rootCause(err: SysError): SysError {
  let e: SysError = err;
  for (let i = 0; i < 5; i++) {
    if (e.errors?.length) e = e.errors[0];
    else if (e.cause instanceof Error && !e.code) e = e.cause as SysError;
    else break;
  }
  return e;
}

export function isAbortError(err: unknown): boolean {
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'AbortError' || (err as { code?: string } | undefined)?.code === 'UND_ERR_ABORTED';
}

/** Maps a failed request to a ConnectionError; `hostPort` is the server's host:port as dialled. */
export function toConnectionError(err: unknown, hostPort: string): ConnectionError {
  if (err instanceof ConnectionError) return err;
  const top = (err instanceof Error ? err : new Error(String(err))) as SysError;
  const e = rootCause(top);
  const code = e.code ?? top.code;
  const where = e.address ? `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port ?? ''}` : hostPort;
  let text: string;
  if (code && DIAL[code]) text = `dial tcp ${where}: ${DIAL[code]}`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') text = `dial tcp: lookup ${e.hostname ?? hostPort.replace(/:\d+$/, '')}: no such host`;
  else if (code === 'ECONNRESET') text = `read tcp ${hostPort}: read: connection reset by peer`;
  else if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') text = 'EOF (the server closed the connection)';
  else if (code === 'UND_ERR_HEADERS_TIMEOUT') text = 'net/http: timeout awaiting response headers';
  else if (code === 'UND_ERR_BODY_TIMEOUT') text = 'net/http: timeout reading the response body';
  else if (code && X509.has(code)) text = `tls: failed to verify certificate: x509: certificate signed by unknown authority (${code})`;
  else if (code === 'CERT_HAS_EXPIRED') text = 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') text = `tls: failed to verify certificate: x509: ${e.message}`;
  else if (code === 'EPROTO' || /wrong version number|packet length too long/i.test(e.message)) text = `tls: first record does not look like a TLS handshake (${hostPort})`;
  else text = e.message || String(err);
  return new ConnectionError(text, code, { cause: err });
}
