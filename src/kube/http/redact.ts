// Masks credentials (bearer tokens, basic auth, key material) in any text kwatch may print.

const PATTERNS: [RegExp, string][] = [
  [/(Bearer\s+)[^\s"',]+/gi, '$1***'],
  [/(Basic\s+)[A-Za-z0-9+/=]+/gi, '$1***'],
  [/("?(?:token|password|client-key-data|client-certificate-data|id-token|refresh-token|access-token)"?\s*[:=]\s*"?)[^\s"',}]+/gi, '$1***'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, '***PRIVATE KEY***'],
];

/** The text with every credential-looking value replaced by `***`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  for (const [re, repl] of PATTERNS) out = out.replace(re, repl);
  return out;
}

/** Authorization header values as a server may echo them: the scheme as sent (capitalized), then the credential. */
const ECHOED: [RegExp, string][] = [
  [/\b(Bearer\s+)[A-Za-z0-9\-._~+/*]+=*/g, '$1***'], // RFC 6750's token68 characters
  [/\b(Basic\s+)[A-Za-z0-9+/=]{4,}/g, '$1***'],
];

/**
 * Text a server sent back (an error message) with our credentials masked: the known secrets, and any
 * `Bearer …`/`Basic …` value. Unlike redact(), words such as "token:" are left alone: they are prose here.
 */
export function redactEcho(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  for (const [re, repl] of ECHOED) out = out.replace(re, repl);
  return out;
}

/** Header values safe to show: Authorization and Impersonate-* credentials masked. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = /^(authorization|proxy-authorization|cookie)$/i.test(k) ? v.replace(/^(\w+\s+).*$/, '$1***') : v;
  return out;
}
