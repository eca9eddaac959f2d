// Generates the sim's OpenAPI schema data once, from the Kubernetes OpenAPI spec as @kubernetes/client-node publishes it:
// its generated models (dist/gen/models/*.js attributeTypeMap: field names, types, formats; *.d.ts: JSDoc descriptions,
// required fields) and its generated API classes (which group-version serves which kind).
// - src/sim/openapi/kube-definitions.data.ts: every definition, from @kubernetes/client-node (1.4.0: spec v1.34.0);
// - src/sim/openapi/kube-definitions-releases.data.ts: for each other release with a client-node generated from its
//   spec (dev dependencies kube-models-1.32 = client-node 1.1.2, spec v1.32.0; kube-models-1.33 = 1.3.0, v1.33.0),
//   only the definitions that differ from the base (null: the release has no such definition). No client-node was
//   generated from 1.35's spec (2.0 is release-1.36), so 1.35 serves the base's (1.34's) definitions.
// Run: node scripts/generate-openapi.js   (no network; reads node_modules only)
//
// What the models lose against kube's own swagger.json, and so the data lacks: descriptions of fields that are a $ref
// (the referenced type's description stands in), x-kubernetes-patch-merge-key/strategy, x-kubernetes-list-type/map-keys,
// x-kubernetes-unions, enum values, and the Quantity type (its fields read as strings: QUANTITY_FIELDS names them again). Go package names are
// reconstructed (see packageOf) — a shared type reached only from a non-core group may be filed under that group.
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** apimachinery's meta/v1 types: every group refers to them. */
const META_TYPES = new Set(['ObjectMeta', 'ListMeta', 'LabelSelector', 'LabelSelectorRequirement', 'OwnerReference', 'ManagedFieldsEntry',
  'Status', 'StatusDetails', 'StatusCause', 'DeleteOptions', 'Preconditions', 'Condition', 'APIResource', 'APIResourceList', 'APIGroup',
  'APIGroupList', 'APIVersions', 'GroupVersionForDiscovery', 'ServerAddressByClientCIDR', 'WatchEvent', 'FieldSelectorRequirement']);
/** Kinds served through another group's paths (a subresource's kind). */
const KIND_GROUP = { V1Scale: 'autoscaling', V1Eviction: 'policy' };
/** core/v1 types only other groups refer to (StorageClass's allowedTopologies). */
const CORE_ONLY_REFERENCED = ['V1TopologySelectorTerm', 'V1TopologySelectorLabelRequirement'];

/** The Go package prefix of a group's types, as kube names its definitions. */
function packageOf(group, version) {
  if (group === '') return `io.k8s.api.core.${version}`;
  if (group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}`;
  if (group === 'internal.apiserver.k8s.io') return `io.k8s.api.apiserverinternal.${version}`;
  return `io.k8s.api.${group.split('.')[0]}.${version}`;
}

/** "V1beta1Foo" → { version: 'v1beta1', name: 'Foo' }; "CoreV1Event" → also { prefix: 'Core' }. */
function splitModel(model) {
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z].*)$/.exec(model);
  if (!m) return undefined;
  return { prefix: m[1], version: m[2].toLowerCase(), name: m[3] };
}

function readModel(models, file) {
  const js = readFileSync(join(models, `${file}.js`), 'utf8');
  const dts = readFileSync(join(models, `${file}.d.ts`), 'utf8');
  const attrs = /attributeTypeMap = (\[[\s\S]*?\]);/.exec(js);
  const classDoc = /\/\*\*\n((?:\* ?.*\n)*?)\*\/\nexport declare class/.exec(dts);
  const fields = {};
  // Each property line, with the JSDoc block right above it (if any).
  const re = /(?:\/\*\*\n((?:\s*\* ?.*\n)*?)\s*\*\/\n)?\s*'([^']+)'(\?)?: /g;
  for (let m; (m = re.exec(dts));) fields[m[2]] = { doc: m[1] ? docText(m[1]) : undefined, required: m[3] === undefined };
  return { attrs: attrs ? JSON.parse(attrs[1]) : [], description: classDoc ? docText(classDoc[1]) : undefined, fields };
}

/** A JSDoc block's text: the generator escaped quotes and backslashes as in a string literal. */
function docText(block) {
  return block.split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim().replace(/\\(["'\\])/g, '$1');
}

/** kube's definitions as one client-node package's generated models give them. */
function definitionsOf(packageName) {
  const pkgJson = require.resolve(`${packageName}/package.json`, { paths: [root] });
  const clientNode = dirname(pkgJson);
  const clientVersion = JSON.parse(readFileSync(pkgJson, 'utf8')).version;
  const models = join(clientNode, 'dist/gen/models');
  const apis = join(clientNode, 'dist/gen/apis');
  const modelFiles = readdirSync(models).filter((f) => f.endsWith('.d.ts') && f !== 'all.d.ts' && f !== 'ObjectSerializer.d.ts').map((f) => f.slice(0, -5));
  const modelSet = new Set(modelFiles);
  const parsed = new Map(modelFiles.map((f) => [f, readModel(models, f)]));

  // Which group-version each API class serves, and the kinds (models with apiVersion and kind) its operations carry.
  const apiKinds = []; // [{ group, version, models: Set }]
  for (const f of readdirSync(apis).filter((f) => /V\d+(?:alpha\d+|beta\d+)?Api\.js$/.test(f))) {
    const text = readFileSync(join(apis, f), 'utf8');
    const path = /localVarPath = '\/(?:api\/(v\d+)|apis\/([^/]+)\/([^/']+))/.exec(text);
    if (!path) continue;
    const group = path[1] ? '' : path[2];
    const version = path[1] ?? path[3];
    const used = new Set([...text.matchAll(/"((?:[A-Z][a-z]+)?V\d+(?:alpha\d+|beta\d+)?[A-Z]\w*)"/g)].map((m) => m[1]).filter((m) => modelSet.has(m)));
    apiKinds.push({ group, version, models: used });
  }
  // Core first: shared types (PodTemplateSpec, ObjectReference…) belong to core/v1 when it reaches them.
  apiKinds.sort((a, b) => (a.group === '' ? -1 : b.group === '' ? 1 : a.group < b.group ? -1 : a.group > b.group ? 1 : a.version < b.version ? -1 : 1));

  const hasTypeMeta = (m) => { const n = new Set(parsed.get(m).attrs.map((a) => a.baseName)); return n.has('apiVersion') && n.has('kind'); };
  const refsOf = (m) => parsed.get(m).attrs.flatMap((a) => [...a.type.matchAll(/(?:[A-Z][a-z]+)?V\d+(?:alpha\d+|beta\d+)?[A-Z]\w*/g)].map((x) => x[0])).filter((x) => modelSet.has(x));

  /** model → { pkg, name, gvk? } */
  const owner = new Map();
  for (const m of modelFiles) {
    const s = splitModel(m);
    if (!s) continue;
    if (s.version === 'v1' && META_TYPES.has(s.name) && !s.prefix) owner.set(m, { pkg: META, name: s.name });
  }
  for (const [m, group] of Object.entries(KIND_GROUP)) {
    const s = splitModel(m);
    owner.set(m, { pkg: packageOf(group, s.version), name: s.name, gvk: { group, version: s.version, kind: s.name } });
  }
  for (const m of CORE_ONLY_REFERENCED) owner.set(m, { pkg: packageOf('', 'v1'), name: splitModel(m).name });
  const PREFIX_GROUP = { Core: '', Events: 'events.k8s.io', Discovery: 'discovery.k8s.io', Rbac: 'rbac.authorization.k8s.io', Flowcontrol: 'flowcontrol.apiserver.k8s.io',
    Storage: 'storage.k8s.io', Authentication: 'authentication.k8s.io', Admissionregistration: 'admissionregistration.k8s.io', Apiextensions: 'apiextensions.k8s.io',
    Apiregistration: 'apiregistration.k8s.io', Resource: 'resource.k8s.io' };
  for (const m of modelFiles) {
    const s = splitModel(m);
    if (s?.prefix && !owner.has(m)) {
      if (!(s.prefix in PREFIX_GROUP)) throw new Error(`unknown model prefix ${s.prefix} (${m})`);
      owner.set(m, { pkg: packageOf(PREFIX_GROUP[s.prefix], s.version), name: s.name });
    }
  }
  // Kinds first (their gvk), then everything each group's kinds reach, breadth first.
  for (const api of apiKinds) {
    for (const m of api.models) {
      const s = splitModel(m);
      if (!s || s.version !== api.version || !hasTypeMeta(m) || owner.has(m) && owner.get(m).pkg === META) continue;
      if (!owner.has(m)) owner.set(m, { pkg: packageOf(api.group, api.version), name: s.name });
      const o = owner.get(m);
      if (!o.gvk && o.pkg === packageOf(api.group, api.version)) o.gvk = { group: api.group, version: api.version, kind: s.name };
    }
  }
  // Then everything each package's types reach (core's first), breadth first; a type is its version's.
  const packages = [...new Set([...owner.values()].map((o) => o.pkg))].sort((a, b) => (a === META ? -1 : b === META ? 1 : a.startsWith('io.k8s.api.core.') ? -1 : b.startsWith('io.k8s.api.core.') ? 1 : a < b ? -1 : 1));
  for (const pkg of packages) {
    const version = pkg.split('.').pop();
    const queue = modelFiles.filter((m) => owner.get(m)?.pkg === pkg);
    const seen = new Set(queue);
    while (queue.length) {
      for (const r of refsOf(queue.shift())) {
        if (seen.has(r)) continue;
        seen.add(r);
        const s = splitModel(r);
        if (!owner.has(r) && s && s.version === version) owner.set(r, { pkg, name: s.name });
        if (owner.get(r)?.pkg === pkg) queue.push(r);
      }
    }
  }
  // Types of versions no API serves any more (e.g. resource.k8s.io/v1alpha3 in the client's 1.34 models) are left out.
  const unowned = modelFiles.filter((m) => !owner.has(m) && splitModel(m));
  if (unowned.length) console.error(`left out (no served group reaches them): ${unowned.join(', ')}`);

  const defName = (m) => `${owner.get(m).pkg}.${owner.get(m).name}`;
  const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

  function schemaOf(type, format) {
    let m;
    if ((m = /^Array<(.*)>$/.exec(type))) return { type: 'array', items: schemaOf(m[1], format) };
    if ((m = /^\{ \[key: string\]: (.*); \}$/.exec(type))) return { type: 'object', additionalProperties: schemaOf(m[1], format) };
    switch (type) {
      case 'string': return format ? { type: 'string', format } : { type: 'string' };
      case 'number': return format === 'double' ? { type: 'number', format } : { type: 'integer', format };
      case 'boolean': return { type: 'boolean' };
      case 'Date': return { type: 'string', format: format || 'date-time' };
      case 'IntOrString': return { $ref: `#/definitions/${INT_OR_STRING}` };
      case 'any': return {};
    }
    if (format === 'date-time-micro') return { type: 'string', format: 'date-time' };
    if (modelSet.has(type)) {
      return { $ref: `#/definitions/${defName(type)}` };
    }
    throw new Error(`unknown model type ${type}`);
  }

  const definitions = {
    [INT_OR_STRING]: { description: 'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.', type: 'string', format: 'int-or-string' },
  };
  for (const m of modelFiles) {
    if (!owner.has(m)) continue;
    const { attrs, description, fields } = parsed.get(m);
    const def = {};
    if (description) def.description = description;
    def.type = 'object';
    const required = attrs.filter((a) => fields[a.name]?.required).map((a) => a.baseName);
    if (required.length) def.required = required;
    if (attrs.length) {
      def.properties = {};
      for (const a of attrs) {
        const s = schemaOf(a.type, a.format);
        const doc = fields[a.name]?.doc;
        def.properties[a.baseName] = doc ? { description: doc, ...s } : s;
      }
    }
    const gvk = owner.get(m).gvk;
    if (gvk) def['x-kubernetes-group-version-kind'] = [gvk];
    definitions[defName(m)] = def;
  }

  // kube's patch tags for the lists that merge (patchStrategy/patchMergeKey, listType/listMapKeys in k8s.io/api), which
  // the models drop. kubectl's client-side apply reads them from /openapi/v3 to build strategic merge patches, so without
  // them it would replace these lists whole. The same keys as src/sim/patch.ts and src/sim/managed-fields/merge-keys.ts.
  const CORE = 'io.k8s.api.core.v1';
  const mergeBy = (key, mapKeys = [key], strategy = 'merge') => ({ 'x-kubernetes-list-map-keys': mapKeys, 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': key, 'x-kubernetes-patch-strategy': strategy });
  const CONTAINER_LISTS = { env: mergeBy('name'), ports: mergeBy('containerPort', ['containerPort', 'protocol']), volumeMounts: mergeBy('mountPath'), volumeDevices: mergeBy('devicePath') };
  const CONDITIONS = { conditions: mergeBy('type') };
  const PATCH_TAGS = {
    [`${CORE}.PodSpec`]: {
      containers: mergeBy('name'), initContainers: mergeBy('name'), ephemeralContainers: mergeBy('name'), volumes: mergeBy('name', ['name'], 'merge,retainKeys'),
      imagePullSecrets: mergeBy('name'), hostAliases: mergeBy('ip'), topologySpreadConstraints: mergeBy('topologyKey', ['topologyKey', 'whenUnsatisfiable']),
      resourceClaims: mergeBy('name', ['name'], 'merge,retainKeys'), schedulingGates: mergeBy('name'),
    },
    [`${CORE}.Container`]: CONTAINER_LISTS,
    [`${CORE}.EphemeralContainer`]: CONTAINER_LISTS,
    [`${META}.ObjectMeta`]: { finalizers: { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' }, ownerReferences: mergeBy('uid') },
    [`${CORE}.ServiceSpec`]: { ports: mergeBy('port', ['port', 'protocol']) },
    [`${CORE}.PodStatus`]: { ...CONDITIONS, podIPs: mergeBy('ip'), hostIPs: mergeBy('ip') },
    [`${CORE}.NodeStatus`]: { ...CONDITIONS, addresses: mergeBy('type') },
    [`${CORE}.NamespaceStatus`]: CONDITIONS,
    [`${CORE}.ServiceStatus`]: CONDITIONS,
    'io.k8s.api.apps.v1.DeploymentStatus': CONDITIONS,
    'io.k8s.api.apps.v1.ReplicaSetStatus': CONDITIONS,
    'io.k8s.api.apps.v1.StatefulSetStatus': CONDITIONS,
    'io.k8s.api.apps.v1.DaemonSetStatus': CONDITIONS,
    'io.k8s.api.batch.v1.JobStatus': { conditions: { 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-patch-strategy': 'merge' } },
  };
  for (const [name, fields] of Object.entries(PATCH_TAGS)) {
    for (const [field, tags] of Object.entries(fields)) {
      const prop = definitions[name]?.properties?.[field];
      if (!prop) throw new Error(`patch tags for a field the models lack: ${name}.${field}`);
      Object.assign(prop, tags);
    }
  }

  // The fields kube types as resource.Quantity (k8s.io/api: `resource.Quantity` and maps and lists of it), which the
  // models read as plain strings. Named by definition without its group and version, so every version the models have
  // gets them; the sim canonicalizes these fields on every write, as kube's decoder does (src/sim/quantity-fields.ts).
  // Checked against kube's own types in the kubernetes-models schemas (resource.k8s.io's v1 types stand for its betas).
  const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
  const QUANTITY_FIELDS = {
    'core.ResourceRequirements': ['limits', 'requests'], 'core.VolumeResourceRequirements': ['limits', 'requests'],
    'core.ContainerStatus': ['allocatedResources'], 'core.EmptyDirVolumeSource': ['sizeLimit'],
    'core.LimitRangeItem': ['default', 'defaultRequest', 'max', 'maxLimitRequestRatio', 'min'], 'core.NodeStatus': ['allocatable', 'capacity'],
    'core.PersistentVolumeClaimStatus': ['allocatedResources', 'capacity'], 'core.PersistentVolumeSpec': ['capacity'], 'core.PodSpec': ['overhead'],
    'core.ResourceFieldSelector': ['divisor'], 'core.ResourceQuotaSpec': ['hard'], 'core.ResourceQuotaStatus': ['hard', 'used'],
    'node.Overhead': ['podFixed'], 'storage.CSIStorageCapacity': ['capacity', 'maximumVolumeSize'],
    'autoscaling.HPAScalingRules': ['tolerance'], 'autoscaling.MetricTarget': ['averageValue', 'value'], 'autoscaling.MetricValueStatus': ['averageValue', 'value'],
    'resource.CapacityRequestPolicy': ['default', 'validValues'], 'resource.CapacityRequestPolicyRange': ['max', 'min', 'step'],
    'resource.CapacityRequirements': ['requests'], 'resource.Counter': ['value'], 'resource.DeviceCapacity': ['value'],
    'resource.DeviceRequestAllocationResult': ['consumedCapacity'],
  };
  const asQuantity = (s) => (s.type === 'array' ? { ...s, items: asQuantity(s.items) } : s.type === 'object' ? { ...s, additionalProperties: asQuantity(s.additionalProperties) }
    : { ...(s.description ? { description: s.description } : {}), $ref: `#/definitions/${QUANTITY}` });
  const typed = new Set();
  for (const [name, def] of Object.entries(definitions)) {
    const m = /^io\.k8s\.api\.(\w+)\.v\w+\.(\w+)$/.exec(name);
    for (const field of (m && QUANTITY_FIELDS[`${m[1]}.${m[2]}`]) ?? []) {
      if (!def.properties?.[field]) continue;
      def.properties[field] = asQuantity(def.properties[field]);
      typed.add(`${m[1]}.${m[2]}.${field}`);
    }
  }
  const untyped = Object.entries(QUANTITY_FIELDS).flatMap(([d, fields]) => fields.map((f) => `${d}.${f}`)).filter((f) => !typed.has(f));
  if (packageName === '@kubernetes/client-node' && untyped.length) throw new Error(`Quantity fields the models lack: ${untyped.join(', ')}`);
  definitions[QUANTITY] = { description: 'Quantity is a fixed-point number with an optional SI or binary suffix (100m, 1.5Gi, 2e3); kube stores it in canonical form.', type: 'string' };

  const sorted = Object.fromEntries(Object.keys(definitions).sort().map((k) => [k, definitions[k]]));
  return {
    source: `@kubernetes/client-node ${clientVersion} generated models (OpenAPI spec ${/OpenAPI spec version: (\S+)/.exec(readFileSync(join(models, 'V1Pod.js'), 'utf8'))[1]})`,
    definitions: sorted,
  };
}

const base = definitionsOf('@kubernetes/client-node');
const data = { source: base.source, generatedBy: 'scripts/generate-openapi.js', definitions: base.definitions };
const gz = gzipSync(JSON.stringify(data), { level: 9 });
const out = join(root, 'src/sim/openapi/kube-definitions.data.ts');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `// Generated by scripts/generate-openapi.js from ${data.source}: do not edit.\n`
  + `// kube's OpenAPI v2 definitions as gzipped JSON ({ source, generatedBy, definitions }), base64-encoded so the build carries it like code.\n`
  + `export const KUBE_DEFINITIONS_GZIP_BASE64 =\n  '${gz.toString('base64')}';\n`);
console.log(`${Object.keys(base.definitions).length} definitions, ${JSON.stringify(data).length} bytes JSON, ${gz.length} gzipped → ${out}`);

// Each other release: the definitions that differ from the base's (whole definitions; null where the release has none).
const RELEASE_MODELS = { '1.32': 'kube-models-1.32', '1.33': 'kube-models-1.33' };
const releases = {};
for (const [release, pkg] of Object.entries(RELEASE_MODELS)) {
  const r = definitionsOf(pkg);
  const changed = {};
  for (const [name, def] of Object.entries(r.definitions)) if (JSON.stringify(def) !== JSON.stringify(base.definitions[name])) changed[name] = def;
  for (const name of Object.keys(base.definitions)) if (!(name in r.definitions)) changed[name] = null;
  const rgz = gzipSync(JSON.stringify({ source: r.source, definitions: changed }), { level: 9 });
  releases[release] = rgz.toString('base64');
  console.log(`${release}: ${Object.keys(changed).length} definitions differ from the base, ${rgz.length} gzipped (${r.source})`);
}
const releasesOut = join(root, 'src/sim/openapi/kube-definitions-releases.data.ts');
writeFileSync(releasesOut, `// Generated by scripts/generate-openapi.js: do not edit.\n`
  + `// Per release, the definitions that differ from kube-definitions.data.ts's (${base.source}) as gzipped JSON\n`
  + `// ({ source, definitions: { name: definition | null } }), base64-encoded. A release not listed serves the base's.\n`
  + `export const KUBE_DEFINITION_CHANGES_GZIP_BASE64: Readonly<Record<string, string>> = {\n`
  + Object.entries(releases).map(([r, b]) => `  '${r}':\n    '${b}',\n`).join('')
  + `};\n`);
