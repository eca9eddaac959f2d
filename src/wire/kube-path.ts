// A request path as kube-apiserver reads it, for the sim (a server) and the endpoint (which must read a path exactly as
// the server will): Go's req.URL.Path, every escape decoded before the path is split (`%2F` is a slash there), then
// apiserver's splitPath. kube's director, go-restful's CurlyRouter (SelectRoute, ExtractParameters) and RequestInfo all
// read req.URL.Path, never RawPath or EscapedPath.

/**
 * Go's url.PathUnescape: every %XX decoded to bytes, then read as UTF-8 (bytes that are not UTF-8 become U+FFFD rather
 * than an error). A malformed escape such as `100%` is left as sent: Go's server answers such a request 400 before any
 * handler.
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

/**
 * apiserver's splitPath (endpoints/request/requestinfo.go), which go-restful's tokenizePath matches: slashes trimmed
 * at both ends, then split, empty inner segments kept (`namespaces//configmaps` has an empty namespace).
 */
export function splitPath(decodedPath: string): string[] {
  const trimmed = decodedPath.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}
