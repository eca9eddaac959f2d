// Reads a continue token for display: the etcd3 store's standard form is base64url JSON {"v","rv","start"}.

export interface DecodedContinueToken {
  /** "meta.k8s.io/v1" for the standard form. */
  v: string;
  /** The revision the paged list is pinned to; -1 means "continue at the latest revision" (a token from a 410). */
  rv: number;
  /** Storage key (relative to the list's prefix) the next page starts after, without the trailing NUL. */
  start: string;
}

/** Decodes a standard continue token; undefined for any other (opaque) form. Never throws. */
export function decodeContinueToken(token: string): DecodedContinueToken | undefined {
  if (!token || !/^[A-Za-z0-9_-]+={0,2}$/.test(token)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { v, rv, start } = parsed as Record<string, unknown>;
  if (typeof v !== 'string' || typeof rv !== 'number' || typeof start !== 'string') return undefined;
  return { v, rv, start: start.endsWith('\u0000') ? start.slice(0, -1) : start };
}

/** `rv=10245 start=default/nginx` for a standard token, else the token cut to `width` characters. */
export function describeContinueToken(token: string | undefined, width = 40): string {
  if (!token) return '';
  const d = decodeContinueToken(token);
  if (d) return `rv=${d.rv} start=${d.start}`;
  return token.length > width ? `${token.slice(0, width - 1)}…` : token;
}
