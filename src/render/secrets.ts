// Masks Secret values and credentials in objects before they are printed or recorded (--show-secrets reveals).
import { createHmac, randomBytes } from 'node:crypto';
import { checkNestingDepth, NestingTooDeepError, nestsDeeperThan } from '../informer/nesting.js';

export interface MaskOptions {
  /** Return the input unchanged (--show-secrets). */
  reveal?: boolean;
  /**
   * The kind of objects that carry none: items of a typed list come without kind from a real server
   * (and from recordings other tools wrote). An object counts when it has `metadata`.
   */
  assumeKind?: string;
}

/** Field names whose string values are credentials, compared case-insensitively without `-`/`_`. */
const CREDENTIAL_FIELDS = new Set([
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'bearer',
  'bearertoken',
  'password',
  'passwd',
  'clientkeydata',
  'apikey',
  'xapikey',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
]);

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * A copy of `value` with every Secret `data`/`stringData` value, whatever its key, replaced by
 * `<masked N bytes>` (N = decoded size), credential fields (token, password, Authorization headers…) masked the same way (an
 * `Authorization: Bearer x` keeps its scheme), and a Secret's last-applied annotation (which holds
 * its data) masked whole. Walks nested values (lists, watch events, recordings). Never mutates the
 * input: unchanged subtrees are shared, changed ones copied. Every object printed or recorded passes
 * here, so here is where one nested deeper than MAX_NESTING_DEPTH fails (NestingTooDeepError), revealed
 * or not, before any other walk or JSON.stringify meets it.
 */
export function maskSecrets<T>(value: T, opts: MaskOptions = {}): T {
  if (opts.reveal) {
    if (nestsDeeperThan(value)) throw new NestingTooDeepError();
    return value;
  }
  return mask(value, opts.assumeKind, 0) as T;
}

/** The placeholder for a secret value of `bytes` bytes (in a diff, with the value's keyed hash: see fingerprint). */
export function maskedValue(bytes: number, hash?: string): string {
  return hash === undefined ? `<masked ${bytes} bytes>` : `<masked ${bytes} bytes #${hash}>`;
}

let runKey: Buffer | undefined;

/**
 * A short keyed hash of a secret value, so a masked diff still says whether the value changed. The key is
 * random per process and never leaves it: the same value hashes alike within one run, and nothing is
 * guessable or comparable across runs.
 */
export function fingerprint(value: string): string {
  runKey ??= randomBytes(32);
  return createHmac('sha256', runKey).update(value).digest('hex').slice(0, 8);
}

function mask(v: unknown, assumeKind: string | undefined, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return v;
  checkNestingDepth(depth);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const m = mask(v[i], assumeKind, depth + 1);
      if (m !== v[i]) (out ??= v.slice())[i] = m;
    }
    return out ?? v;
  }
  const obj = v as Record<string, unknown>;
  return maskObject(obj, (obj.kind ?? (isRecord(obj.metadata) ? assumeKind : undefined)) === 'Secret', assumeKind, depth);
}

function maskObject(obj: Record<string, unknown>, isSecret: boolean, assumeKind: string | undefined, depth: number): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    const x = obj[k];
    let m: unknown;
    if (isSecret && (k === 'data' || k === 'stringData') && isRecord(x)) m = maskValues(x, k === 'data');
    else if (isSecret && k === 'metadata' && isRecord(x)) m = maskLastApplied(x, depth + 1);
    else if (typeof x === 'string' && isCredentialField(k)) m = maskCredential(k, x);
    else m = mask(x, assumeKind, depth + 1);
    if (m !== x) (out ??= { ...obj })[k] = m;
  }
  return out ?? obj;
}

/**
 * A copy of a body sent to or answered by the `secrets` resource, masked as a Secret even where it does
 * not say so: its root without kind (a merge or strategic-merge patch, a watch event), every object with
 * metadata inside it (list items come without kind), and a JSON patch's values under /data, /stringData,
 * /metadata (the last-applied annotation) or the whole object.
 */
export function maskSecretResourceBody<T>(value: T, opts: MaskOptions = {}): T {
  if (opts.reveal) return value;
  if (Array.isArray(value)) return maskJsonPatch(value) as T;
  if (!isRecord(value)) return value;
  return maskObject(value, (value.kind ?? 'Secret') === 'Secret', 'Secret', 0) as T;
}

/** A JSON patch (RFC 6902) on a Secret: the value of every operation that reaches its data or metadata masked. */
function maskJsonPatch(ops: unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!isRecord(op) || !('value' in op)) continue;
    const path = typeof op.path === 'string' ? op.path : '';
    const masked = maskPatchValue(op.value, path);
    if (masked !== op.value) (out ??= ops.slice())[i] = { ...op, value: masked };
  }
  return out ?? ops;
}

function maskPatchValue(v: unknown, path: string): unknown {
  const data = /^\/(data|stringData)(\/|$)/.exec(path);
  if (data) {
    const base64 = data[1] === 'data';
    if (typeof v === 'string') return maskedValue(base64 ? base64Bytes(v) : Buffer.byteLength(v, 'utf8'));
    if (data[2] === '' && isRecord(v)) return maskValues(v, base64);
    return '<masked>';
  }
  if (path.includes('last-applied-configuration')) return typeof v === 'string' ? maskedValue(Buffer.byteLength(v, 'utf8')) : '<masked>';
  if (path === '/metadata' && isRecord(v)) return maskLastApplied(v, 1);
  if (path === '/metadata/annotations' && isRecord(v)) return (maskLastApplied({ annotations: v }, 1) as { annotations: unknown }).annotations;
  if (path === '' || path === '/') return isRecord(v) ? maskObject(v, true, 'Secret', 0) : v;
  return mask(v, 'Secret', 1);
}

function maskValues(data: Record<string, unknown>, base64: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(data)) {
    out[k] = typeof x === 'string' ? maskedValue(base64 ? base64Bytes(x) : Buffer.byteLength(x, 'utf8')) : x;
  }
  return out;
}

function maskLastApplied(meta: Record<string, unknown>, depth: number): unknown {
  const masked = mask(meta, undefined, depth) as Record<string, unknown>;
  const ann = masked.annotations;
  if (!isRecord(ann) || typeof ann[LAST_APPLIED] !== 'string') return masked;
  const value = ann[LAST_APPLIED] as string;
  return { ...masked, annotations: { ...ann, [LAST_APPLIED]: maskedValue(Buffer.byteLength(value, 'utf8')) } };
}

function maskCredential(key: string, value: string, hashed = false): string {
  const n = normalise(key);
  if (n === 'authorization' || n === 'proxyauthorization') {
    const m = /^(\S+)\s+(.*)$/.exec(value);
    if (m) return `${m[1]} ${maskedValue(Buffer.byteLength(m[2], 'utf8'), hashed ? fingerprint(m[2]) : undefined)}`;
  }
  return maskedValue(Buffer.byteLength(value, 'utf8'), hashed ? fingerprint(value) : undefined);
}

/** Decoded size of a base64 string without decoding it. */
function base64Bytes(s: string): number {
  const len = s.replace(/\s/g, '').length;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((len * 3) / 4) - pad);
}

/**
 * Whether a field name holds a credential. Remembered per name: the same few hundred names recur in
 * every object, and masking runs on every indexed object in `kwatch index`. The memo is bounded (data
 * maps and labels bring arbitrary names).
 */
const credentialNames = new Map<string, boolean>();
function isCredentialField(key: string): boolean {
  let yes = credentialNames.get(key);
  if (yes === undefined) {
    yes = CREDENTIAL_FIELDS.has(normalise(key));
    if (credentialNames.size >= 10_000) credentialNames.clear();
    credentialNames.set(key, yes);
  }
  return yes;
}

function normalise(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Masks the values of changes that touch secret material: a Secret's data/stringData (whatever the
 * key) and its last-applied annotation — also inside a whole `metadata`/`metadata.annotations`/`data`
 * added or removed at once — and credential fields (token, password, …) of any object, also nested
 * in a whole added or removed subtree. The change is still listed — what changed is visible, never
 * the values. `obj` is the object the changes belong to (its kind decides whether it is a Secret).
 */
export function maskSecretChanges<C extends { path: string; old: unknown; new: unknown }>(obj: unknown, changes: C[], opts: MaskOptions = {}): C[] {
  if (opts.reveal) return changes;
  const isSecret = isRecord(obj) && obj.kind === 'Secret';
  return changes.map((c) => {
    const old = maskChangeValue(c.old, c.path, isSecret);
    const now = maskChangeValue(c.new, c.path, isSecret);
    return old === c.old && now === c.new ? c : { ...c, old, new: now };
  });
}

const SECRET_DATA_PATH = /^(data|stringData)([.[]|$)/;

/** One side of a change at `path`, masked as maskSecrets would mask it in place. */
function maskChangeValue(v: unknown, path: string, isSecret: boolean): unknown {
  if (v === undefined || v === null) return v;
  if (isSecret) {
    const data = SECRET_DATA_PATH.exec(path);
    if (data) {
      const base64 = data[1] === 'data';
      if (typeof v === 'string') return maskedValue(base64 ? base64Bytes(v) : Buffer.byteLength(v, 'utf8'), fingerprint(base64 ? Buffer.from(v, 'base64').toString('latin1') : v));
      // The whole map at once (`data: <none> → {...}`): every value masked, the keys kept.
      if (data[2] === '' && isRecord(v)) return maskValues(v, base64);
      return '<masked>';
    }
    if (path.includes(LAST_APPLIED)) return typeof v === 'string' ? maskedValue(Buffer.byteLength(v, 'utf8'), fingerprint(v)) : '<masked>';
    if (path === 'metadata' && isRecord(v)) return maskLastApplied(v, 0);
    if (path === 'metadata.annotations' && isRecord(v)) return (maskLastApplied({ annotations: v }, 0) as { annotations: unknown }).annotations;
    if (path === '') return mask(v, undefined, 0);
  }
  if (typeof v === 'string') {
    const lastSegment = /([A-Za-z0-9_-]+)"?\]?$/.exec(path)?.[1] ?? '';
    return isCredentialField(lastSegment) ? maskCredential(lastSegment, v, true) : v;
  }
  return mask(v, undefined, 0);
}
