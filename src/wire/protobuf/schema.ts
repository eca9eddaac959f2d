// Message schemas: which protobuf field number becomes which JSON field, and how. The schemas themselves are data
// (messages-*.ts, one proto package each, written like generated.proto); this file parses and indexes them.
import { APIMACHINERY_MESSAGES } from './messages-apimachinery.js';
import { APPS_V1_MESSAGES } from './messages-apps-v1.js';
import { BATCH_V1_MESSAGES } from './messages-batch-v1.js';
import { CORE_V1_MESSAGES } from './messages-core-v1.js';
import { MORE_KINDS_MESSAGES, MORE_OBJECT_KINDS } from './messages-more-kinds.js';
import { PLATFORM_MESSAGES, PLATFORM_OBJECT_KINDS } from './messages-platform.js';
import { AUTH_MESSAGES, AUTH_OBJECT_KINDS } from './messages-auth.js';
import { CLUSTER_REPORTS_MESSAGES, CLUSTER_REPORTS_OBJECT_KINDS } from './messages-cluster-reports.js';

/**
 * One proto package's messages. Each message is a block of lines `<number> <jsonName> <type> [flags]`:
 * - type: `string` | `bool` | `int32` | `int64` | `bytes` | a message name; `T[]` is repeated; `map<T>` is a
 *   map with string keys (entries {key = 1, value = 2}).
 * - flags: `ptr` (a Go pointer) and `req` (no omitempty) keep a scalar's zero value in the JSON — gogo-protobuf
 *   writes every non-pointer field, so without them an empty string or 0 is dropped as Go's omitempty would;
 *   `inline` (Go `json:",inline"`) merges the nested message's fields into this message's JSON object.
 */
export interface ProtoPackage {
  package: string;
  messages: Record<string, string>;
  /**
   * Indexes this package's messages as `prefix + name`, for a package whose message names another package already
   * uses (events.k8s.io/v1 Event beside core/v1 Event); its own field types then name them with the prefix too.
   * The proto name in error messages stays `package.name`.
   */
  prefix?: string;
}

export type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'bytes';
const SCALARS: ReadonlySet<string> = new Set<ScalarType>(['string', 'bool', 'int32', 'int64', 'bytes']);

export interface FieldSchema {
  number: number;
  json: string;
  /** A scalar type or a message name. */
  type: string;
  scalar: boolean;
  repeated: boolean;
  map: boolean;
  keepZero: boolean;
  inline: boolean;
}

export interface MessageSchema {
  name: string;
  /** The proto name, e.g. `k8s.io.api.core.v1.Container`, for error messages. */
  fullName: string;
  /** In field-number order. */
  fields: ReadonlyMap<number, FieldSchema>;
}

const FIELD_LINE = /^(\d+) (\w+) (map<(\w+)>|(\w+)(\[\])?)((?: (?:ptr|req|inline))*)$/;

function parseMessage(pkg: string, name: string, text: string, prefix = ''): MessageSchema {
  const fields = new Map<number, FieldSchema>();
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const m = FIELD_LINE.exec(line);
    if (!m) throw new Error(`protobuf schema ${name}: cannot parse line "${line}"`);
    const type = m[4] ?? m[5];
    const flags = m[7].trim().split(' ');
    const field: FieldSchema = {
      number: Number(m[1]), json: m[2], type, scalar: SCALARS.has(type), repeated: m[6] === '[]', map: m[4] !== undefined,
      keepZero: flags.includes('ptr') || flags.includes('req'), inline: flags.includes('inline'),
    };
    if (fields.has(field.number)) throw new Error(`protobuf schema ${name}: field ${field.number} defined twice`);
    fields.set(field.number, field);
  }
  const ordered = new Map([...fields.entries()].sort((a, b) => a[0] - b[0]));
  return { name: prefix + name, fullName: `${pkg}.${name}`, fields: ordered };
}

function indexSchemas(packages: ProtoPackage[]): Map<string, MessageSchema> {
  const index = new Map<string, MessageSchema>();
  for (const p of packages) {
    for (const [name, text] of Object.entries(p.messages)) {
      const m = parseMessage(p.package, name, text, p.prefix);
      if (index.has(m.name)) throw new Error(`protobuf schema ${m.name} defined twice`);
      index.set(m.name, m);
    }
  }
  // A typo in a type name must fail at start-up, not on the first request that uses it.
  for (const m of index.values()) {
    for (const f of m.fields.values()) {
      if (!f.scalar && !index.has(f.type)) throw new Error(`protobuf schema ${m.name}.${f.json}: unknown type ${f.type}`);
      if (f.inline && (f.scalar || f.repeated || f.map)) throw new Error(`protobuf schema ${m.name}.${f.json}: only a singular message can be inline`);
      // Map values are length-delimited in every k8s map, which lets an entry without a value decode as the zero value.
      if (f.map && f.scalar && f.type !== 'string' && f.type !== 'bytes') throw new Error(`protobuf schema ${m.name}.${f.json}: map values must be string, bytes or a message`);
    }
  }
  return index;
}

const SCHEMAS = indexSchemas([...APIMACHINERY_MESSAGES, CORE_V1_MESSAGES, APPS_V1_MESSAGES, BATCH_V1_MESSAGES, ...MORE_KINDS_MESSAGES, ...PLATFORM_MESSAGES, ...AUTH_MESSAGES, ...CLUSTER_REPORTS_MESSAGES]);

export function messageSchema(name: string): MessageSchema {
  const s = SCHEMAS.get(name);
  if (!s) throw new Error(`no protobuf schema for message ${name}`);
  return s;
}

export function allMessageSchemas(): Iterable<MessageSchema> {
  return SCHEMAS.values();
}

/** The top-level kinds the sim decodes from protobuf, by `apiVersion/kind`. */
const OBJECT_KINDS: Record<string, string> = {
  'v1/ConfigMap': 'ConfigMap',
  'v1/Namespace': 'Namespace',
  'v1/Pod': 'Pod',
  'v1/Secret': 'Secret',
  'v1/Service': 'Service',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/ReplicaSet': 'ReplicaSet',
  'batch/v1/Job': 'Job',
  ...MORE_OBJECT_KINDS,
  ...PLATFORM_OBJECT_KINDS,
  ...AUTH_OBJECT_KINDS,
  ...CLUSTER_REPORTS_OBJECT_KINDS,
};

/** The schema for a top-level object, or undefined when the sim cannot decode that kind. */
export function objectSchema(apiVersion: string, kind: string): MessageSchema | undefined {
  // Typed clients send DeleteOptions under their own group's version (it is registered in every group).
  if (kind === 'DeleteOptions') return messageSchema('DeleteOptions');
  // metav1.Status is registered in every group version too (kube answers errors in it).
  if (kind === 'Status') return messageSchema('Status');
  const name = OBJECT_KINDS[`${apiVersion}/${kind}`];
  if (name !== undefined) return messageSchema(name);
  return kind.endsWith('List') ? listSchema(apiVersion, kind.slice(0, -'List'.length)) : undefined;
}

const listSchemas = new Map<string, MessageSchema>();

/** Every generated XList is `metadata ListMeta = 1; repeated X items = 2`, so lists are made from their item's schema. */
function listSchema(apiVersion: string, itemKind: string): MessageSchema | undefined {
  const item = OBJECT_KINDS[`${apiVersion}/${itemKind}`];
  if (item === undefined) return undefined;
  let s = listSchemas.get(item);
  if (!s) {
    const field = (number: number, json: string, type: string, repeated: boolean): FieldSchema => ({ number, json, type, scalar: false, repeated, map: false, keepZero: false, inline: false });
    s = { name: `${item}List`, fullName: `${messageSchema(item).fullName}List`, fields: new Map([[1, field(1, 'metadata', 'ListMeta', false)], [2, field(2, 'items', item, true)]]) };
    listSchemas.set(item, s);
  }
  return s;
}

export function decodableKinds(): string[] {
  return Object.keys(OBJECT_KINDS).map((k) => k.replace(/\/(?=[^/]*$)/, ' '));
}
