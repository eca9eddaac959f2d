// Secrets whose keys look like nothing in particular (db-url, config.yaml, settings.ini): only the
// Secret rule can mask them — the credential-name rule (password, token) never matches. Every value
// carries a marker word; LEAKS lists what must never be printed while secrets are masked.

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export const PLAIN = {
  dbUrl: 'postgres://app:ocelot-lantern@db:5432/app',
  dbUrlNew: 'postgres://app:walrus-saffron@db:5432/app',
  config: 'mode: quiet\nlevel: marmot-quiver\n',
  stringDbUrl: 'mysql://root:heron-basalt@mysql/app',
  settings: 'colour=tangerine-pelican',
};

/** Substrings that reveal a value: marker words and the base64 forms of the data values. */
export const LEAKS = [
  'ocelot-lantern',
  'walrus-saffron',
  'marmot-quiver',
  'heron-basalt',
  'tangerine-pelican',
  b64(PLAIN.dbUrl),
  b64(PLAIN.dbUrlNew),
  b64(PLAIN.config),
];

/** The last-applied annotation kubectl apply writes: the Secret as applied, with its plaintext stringData. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const lastApplied = (data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app', namespace: 'default' }, data, stringData: { 'db-url': PLAIN.stringDbUrl, 'settings.ini': PLAIN.settings } }) + '\n';

export interface SecretObject {
  [field: string]: unknown;
  apiVersion: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  type: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** The Secret as first listed: no annotations, one data key. */
export function oldSecret(): SecretObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app', namespace: 'default', resourceVersion: '10' }, type: 'Opaque', data: { 'db-url': b64(PLAIN.dbUrl) } };
}

/**
 * The Secret after `kubectl apply` by a client whose server did not fold stringData (another tool's
 * recording, a write shown before the server saw it): a changed and an added data key, stringData, and
 * the whole annotations map (with last-applied) added at once.
 */
export function newSecret(): SecretObject {
  const data = { 'db-url': b64(PLAIN.dbUrlNew), 'config.yaml': b64(PLAIN.config) };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'app', namespace: 'default', resourceVersion: '11', annotations: { [LAST_APPLIED]: lastApplied(data), team: 'payments' } },
    type: 'Opaque',
    data,
    stringData: { 'db-url': PLAIN.stringDbUrl, 'settings.ini': PLAIN.settings },
  };
}

/** Fails with the leaked marker when `text` reveals any secret value. */
export function leaksIn(text: string): string[] {
  return LEAKS.filter((l) => text.includes(l));
}
