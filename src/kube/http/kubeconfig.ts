// Reads kubeconfig the way kubectl does (KUBECONFIG with several files, first file wins per name,
// --context/--cluster/--user overrides) and resolves it into the server URL, TLS material and auth
// headers a Connection needs. Static credentials (token, token file, basic auth, client certs) are
// applied here; exec plugins and auth providers go through @kubernetes/client-node's KubeConfig,
// which is loaded only then (it costs about half a second to import).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { KubeconfigError } from './config-error.js';
import { readSimpleYaml } from './kubeconfig-yaml.js';
import { redact } from './redact.js';
import { maskUrlPasswords, serverAddress } from './server-url.js';
import type { RequestHeaders } from './request-headers.js';

export interface KubeconfigSelection {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
}

export interface TlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

export interface ResolvedKubeconfig {
  /** The server URL as it may be shown: a password in its userinfo masked. */
  server: string;
  /** The server URL as written (kubectl names its discovery cache folder after it). */
  cacheHost: string;
  namespace: string;
  contextName?: string;
  files: string[];
  tls: TlsOptions;
  /** Static headers: bearer token, basic auth, impersonation. */
  headers: RequestHeaders;
  /** For exec plugins and auth providers: fresh headers per request (the provider caches). */
  authHeaders?: () => Promise<Record<string, string>>;
  proxyUrl?: string;
  secrets: string[];
}

interface HttpsLikeOptions {
  headers?: Record<string, string>;
  ca?: Buffer;
  cert?: Buffer | string;
  key?: Buffer | string;
  rejectUnauthorized?: boolean;
  servername?: string;
  auth?: string;
}

/** Files to read: --kubeconfig, else every existing file of $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigFiles(explicit?: string): string[] {
  if (explicit) {
    if (!existsSync(explicit)) throw new KubeconfigError(`stat ${explicit}: no such file or directory (the file given by --kubeconfig does not exist)`);
    return [explicit];
  }
  const env = process.env.KUBECONFIG;
  if (env) return env.split(delimiter).filter((f) => f && existsSync(f));
  const home = process.env.HOME || homedir();
  const def = join(home, '.kube', 'config');
  return existsSync(def) ? [def] : [];
}

const NO_CONFIG = 'no configuration has been provided: pass --kubeconfig FILE, set KUBECONFIG, create ~/.kube/config, or use --sim for an embedded cluster';


type Raw = Record<string, any>;

interface Named {
  name: string;
  /** The entry's body (cluster:, user: or context:), relative paths made absolute. */
  body: Raw;
}

const PATH_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'token-file'];

function absolutePaths(body: Raw, base: string): Raw {
  const out = { ...body };
  for (const f of PATH_FIELDS) if (typeof out[f] === 'string' && out[f] && !isAbsolute(out[f])) out[f] = join(base, out[f]);
  return out;
}

/** One file's entries, validated as client-node validates them (same messages). */
function parseFile(file: string, text: string): { clusters: Named[]; users: Named[]; contexts: Named[]; current?: string } {
  const fail = (msg: string): never => {
    throw new KubeconfigError(`error loading config file "${file}": ${redact(msg.split('\n')[0])}`);
  };
  let doc: Raw;
  try {
    // The subset kubectl and the cloud CLIs write, read without loading `yaml`; any other text, by `yaml`.
    doc = (readSimpleYaml(text) ?? (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text)) as Raw;
  } catch (err) {
    return fail((err as Error).message);
  }
  if (doc === null || doc === undefined) return { clusters: [], users: [], contexts: [] };
  if (typeof doc !== 'object' || Array.isArray(doc)) return fail('not a kubeconfig: expected a YAML mapping with clusters, users and contexts');
  const base = dirname(file);
  const list = (key: string, inner: string, check?: (body: Raw, i: number) => void): Named[] =>
    (Array.isArray(doc[key]) ? (doc[key] as Raw[]) : []).map((e, i) => {
      if (!e?.name) fail(`${key}[${i}].name is missing`);
      if (inner !== 'user' && !e[inner]) fail(`${key}[${i}].${inner} is missing`);
      const body = absolutePaths((e[inner] ?? {}) as Raw, base);
      check?.(body, i);
      return { name: String(e.name), body };
    });
  return {
    clusters: list('clusters', 'cluster', (b, i) => {
      if (!b.server) fail(`clusters[${i}].cluster.server is missing`);
    }),
    users: list('users', 'user'),
    contexts: list('contexts', 'context'),
    current: typeof doc['current-context'] === 'string' && doc['current-context'] ? doc['current-context'] : undefined,
  };
}

function readBytes(what: string, file: unknown, data: unknown): Buffer | undefined {
  if (typeof file === 'string' && file) {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new KubeconfigError(`unable to read ${what} from "${file}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
  return undefined;
}

/** The text of one kubeconfig file; what cannot be read (a directory, no permission) is one KubeconfigError line. */
function readKubeconfigFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new KubeconfigError(`the kubeconfig "${file}" is a directory: name a kubeconfig file (--kubeconfig or $KUBECONFIG)`);
    throw new KubeconfigError(`cannot read the kubeconfig "${file}": ${code ?? (err as Error).message}`);
  }
}

export async function resolveKubeconfig(sel: KubeconfigSelection): Promise<ResolvedKubeconfig> {
  const files = kubeconfigFiles(sel.kubeconfig);
  if (files.length === 0) throw new KubeconfigError(NO_CONFIG);

  // kubectl's merge: the first file to define a name wins; current-context from the first file that sets one.
  const clusters: Named[] = [];
  const users: Named[] = [];
  const contexts: Named[] = [];
  let currentContext: string | undefined;
  for (const file of files) {
    const parsed = parseFile(file, readKubeconfigFile(file));
    for (const c of parsed.clusters) if (!clusters.some((x) => x.name === c.name)) clusters.push(c);
    for (const u of parsed.users) if (!users.some((x) => x.name === u.name)) users.push(u);
    for (const c of parsed.contexts) if (!contexts.some((x) => x.name === c.name)) contexts.push(c);
    currentContext ??= parsed.current;
  }
  const where = files.length === 1 ? `"${files[0]}"` : `the merged kubeconfig (${files.join(delimiter)})`;

  const contextName = sel.context ?? currentContext;
  const context = contextName ? contexts.find((c) => c.name === contextName) : undefined;
  if (contextName && !context) throw new KubeconfigError(`context "${contextName}" does not exist in ${where}`);
  if (!context && !sel.cluster) {
    if (clusters.length === 0) throw new KubeconfigError(NO_CONFIG);
    throw new KubeconfigError(`no current context is set in ${where}: pass --context NAME (one of: ${contexts.map((c) => c.name).join(', ') || 'none defined'})`);
  }
  const clusterName = sel.cluster ?? context?.body.cluster;
  const cluster = clusters.find((c) => c.name === clusterName);
  if (!cluster) throw new KubeconfigError(`cluster "${clusterName ?? ''}" does not exist in ${where}`);
  const userName = sel.user ?? context?.body.user;
  const found = userName ? users.find((u) => u.name === userName) : undefined;
  if (sel.user && !found) throw new KubeconfigError(`user "${sel.user}" does not exist in ${where}`);
  const user: Named = found ?? { name: '__kwatch_anonymous__', body: {} };
  const c = cluster.body;
  const u = user.body;

  const address = serverAddress(String(c.server));
  let server: URL;
  try {
    server = new URL(address.raw);
  } catch {
    throw new KubeconfigError(`cluster "${cluster.name}" in ${where} has an invalid server URL "${maskUrlPasswords(address.raw)}"`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') throw new KubeconfigError(`cluster "${cluster.name}" in ${where} has an unsupported server URL scheme "${server.protocol}"`);

  const secrets = [u.token, u.password, u['client-key-data'], address.password].filter((s): s is string => typeof s === 'string' && s.length > 0);
  const tls: TlsOptions = {};
  const ca = readBytes('the certificate authority', c['certificate-authority'], c['certificate-authority-data']);
  if (ca) tls.ca = ca;
  if (c['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
  if (c['tls-server-name']) tls.servername = String(c['tls-server-name']);
  const cert = readBytes('the client certificate', u['client-certificate'], u['client-certificate-data']);
  const key = readBytes('the client key', u['client-key'], u['client-key-data']);
  if (cert) tls.cert = cert;
  if (key) tls.key = key;

  const headers: RequestHeaders = {};
  let token = typeof u.token === 'string' && u.token ? u.token : undefined;
  if (!token && typeof u['token-file'] === 'string' && u['token-file']) token = readBytes('the token', u['token-file'], undefined)!.toString('utf8').trim();
  if (token) {
    headers.Authorization = `Bearer ${token}`;
    secrets.push(token);
  } else if (u.username) {
    headers.Authorization = `Basic ${Buffer.from(`${u.username}:${u.password ?? ''}`).toString('base64')}`;
  }
  // Userinfo in the server URL is basic auth when nothing else authenticates (Go's http.Client sends it so).
  if (!headers.Authorization && address.basicAuth && !u.exec && !u['auth-provider']) headers.Authorization = address.basicAuth;
  if (u.as) headers['Impersonate-User'] = String(u.as);
  // One line per group, as client-go's impersonating transport Adds them: kube-apiserver reads each line as one group
  // and never splits a value on commas (a group may hold one: cn=ops,dc=example).
  if (Array.isArray(u['as-groups']) && u['as-groups'].length) headers['Impersonate-Group'] = u['as-groups'].map(String);

  let authHeaders: ResolvedKubeconfig['authHeaders'];
  if (u.exec || u['auth-provider']) {
    authHeaders = await pluginAuth(cluster, user, where, secrets, tls);
  }

  return {
    server: address.shown,
    cacheHost: address.raw,
    namespace: sel.namespace || context?.body.namespace || 'default',
    contextName: context?.name,
    files,
    tls,
    headers,
    authHeaders,
    proxyUrl: c['proxy-url'] ? String(c['proxy-url']) : undefined,
    secrets,
  };
}

/**
 * Exec plugins and auth providers, through client-node's authenticators: returns a function giving
 * fresh headers per request (the authenticators cache credentials until they expire).
 */
async function pluginAuth(cluster: Named, user: Named, where: string, secrets: string[], tls: TlsOptions): Promise<() => Promise<Record<string, string>>> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  // JSON is YAML: client-node reads it as it reads any kubeconfig.
  kc.loadFromString(
    JSON.stringify({
      clusters: [{ name: cluster.name, cluster: cluster.body }],
      users: [{ name: user.name, user: user.body }],
      contexts: [{ name: 'kwatch', context: { cluster: cluster.name, user: user.name } }],
      'current-context': 'kwatch',
    }),
  );
  const internals = kc as unknown as { applyAuthorizationHeader?(o: HttpsLikeOptions): Promise<void>; applyOptions?(o: HttpsLikeOptions): Promise<void> };
  const apply = async (): Promise<HttpsLikeOptions> => {
    const o: HttpsLikeOptions = { headers: {} };
    try {
      if (internals.applyAuthorizationHeader) await internals.applyAuthorizationHeader(o);
      else if (internals.applyOptions) await internals.applyOptions(o);
      else await kc.applyToHTTPSOptions(o as never);
    } catch (err) {
      const msg = ((err as Error).message ?? String(err)).split('\n')[0];
      throw new KubeconfigError(`cannot get credentials for user "${user.name}" from ${where}: ${redact(msg, secrets)}`, { cause: err });
    }
    return o;
  };
  // First call now: fails early, and picks up client certificates an exec plugin may return.
  const first = await apply();
  if (first.cert) tls.cert = Buffer.from(first.cert);
  if (first.key) tls.key = Buffer.from(first.key);
  return async () => (await apply()).headers ?? {};
}
