// Go's url.PathUnescape, as kube-apiserver applies it to a request path: what both the sim (a server) and the endpoint
// (which must read a path exactly as the server will) decode with.

/**
 * Every %XX decoded to bytes, then read as UTF-8 (bytes that are not UTF-8 become U+FFFD rather than an error). A
 * malformed escape such as `100%` is left as sent: Go's server answers such a request 400 before any handler.
 */
export function goPathUnescape(path: string): string {
  if (!path.includes('%')) return path;
  const bytes: Buffer[] = [];
  let last = 0;
  for (const m of path.matchAll(/%([0-9a-fA-F]{2})/g)) {
    bytes.push(Buffer.from(path.slice(last, m.index), 'utf8'), Buffer.from([parseInt(m[1], 16)]));
    last = m.index + 3;
  }
  bytes.push(Buffer.from(path.slice(last), 'utf8'));
  return Buffer.concat(bytes).toString('utf8');
}
