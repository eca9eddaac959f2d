// A server URL may carry userinfo (https://user:password@host). Go's HTTP client — so kubectl — sends it
// as basic auth when nothing else sets Authorization, and kubectl names its discovery cache folder after
// the URL as written, password included. kwatch does both alike, but never shows the password: messages,
// the `Server:` line, recording headers and checkpoints get the URL with the password as `***`.

export interface ServerAddress {
  /** As the kubeconfig spells it (trailing slashes removed): kubectl's discovery cache folder is named after it. */
  raw: string;
  /** What may be printed or written to a file: the password replaced by `***`. */
  shown: string;
  /** `Basic …` for the userinfo, sent when no other credential sets Authorization (as Go does). */
  basicAuth?: string;
  /** The decoded password, to mask wherever a server might echo it. */
  password?: string;
}

/** scheme://, then userinfo up to the first '@' before any '/', '?' or '#'. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function serverAddress(text: string): ServerAddress {
  const raw = text.replace(/\/+$/, '');
  const m = USERINFO.exec(raw);
  if (!m) return { raw, shown: raw };
  const colon = m[2].indexOf(':');
  const user = colon < 0 ? m[2] : m[2].slice(0, colon);
  const password = colon < 0 ? undefined : m[2].slice(colon + 1);
  const basicAuth = `Basic ${Buffer.from(`${decode(user)}:${decode(password ?? '')}`).toString('base64')}`;
  if (password === undefined) return { raw, shown: raw, basicAuth };
  return { raw, shown: `${m[1]}${user}:***@${raw.slice(m[0].length)}`, basicAuth, password: decode(password) };
}

/** Any `scheme://user:password@` in free text with the password masked (a last guard for error lines). */
export function maskUrlPasswords(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'<>]*:)[^\s/?#@"'<>]+@/gi, '$1***@');
}

/**
 * The discovery cache folder name to print for `raw`, given the name kubectl computes from it (`safe`:
 * the scheme stripped, then one character for each character): the password's characters become `***`.
 */
export function shownFolderName(raw: string, safe: string, fallback: (shown: string) => string): string {
  const m = USERINFO.exec(raw);
  const colon = m ? m[2].indexOf(':') : -1;
  if (!m || colon < 0) return safe;
  if (safe.length !== raw.length - m[1].length) return fallback(serverAddress(raw).shown);
  return `${safe.slice(0, colon + 1)}***${safe.slice(m[2].length)}`;
}
