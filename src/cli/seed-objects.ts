// --sim-objects FILE|DIR (reconcile) and `kwatch sim --objects FILE|DIR`: objects created in the embedded server
// before anything else talks to it — YAML or JSON, several documents per file, `kind: List` (or any *List) unrolled,
// a folder read file by file in name order. Stored directly, so they are never a controller's writes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { SimApi, SimObject } from '../sim/api.js';
import { groupVersion, type ResourceType } from '../sim/registry.js';
import { checkFields, strictBodyError } from '../sim/field-validation.js';
import { UserError } from './user-error.js';

export interface SeedObject {
  /** Where it came from, for messages: FILE document N. */
  where: string;
  object: Record<string, unknown>;
}

const SEED_FILE = /\.(ya?ml|json)$/i;

/** Every object the paths hold, in order; a path or document that holds none is a one-line error. */
export function readSeedObjects(paths: readonly string[], flag: string): SeedObject[] {
  const out: SeedObject[] = [];
  for (const p of paths) {
    let files: string[];
    try {
      files = statSync(p).isDirectory() ? readdirSync(p).filter((f) => SEED_FILE.test(f)).sort().map((f) => join(p, f)) : [p];
    } catch (err) {
      throw new UserError(`${flag} ${p}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
    }
    if (files.length === 0) throw new UserError(`${flag} ${p}: the folder holds no .yaml, .yml or .json file`);
    for (const f of files) out.push(...objectsOfFile(f, flag));
  }
  return out;
}

function objectsOfFile(file: string, flag: string): SeedObject[] {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch (err) { throw new UserError(`${flag} ${file}: ${(err as Error).message}`); }
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: SeedObject[] = [];
  list.forEach((d, i) => {
    if (d.errors.length) throw new UserError(`${flag} ${file} document ${i + 1}: ${d.errors[0].message.split('\n')[0]}`);
    const v = d.toJS() as unknown;
    if (v === null || v === undefined) return;
    for (const o of unrolled(v)) {
      const where = `${file} document ${i + 1}`;
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new UserError(`${flag} ${where}: not an object`);
      const obj = o as Record<string, unknown>;
      const meta = obj.metadata as { name?: unknown } | undefined;
      if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string' || typeof meta?.name !== 'string') throw new UserError(`${flag} ${where}: needs apiVersion, kind and metadata.name`);
      out.push({ where, object: obj });
    }
  });
  return out;
}

/** A List (kind: List, or any kind ending in List with items) or a JSON array, unrolled; an object as it is. */
function unrolled(v: unknown): unknown[] {
  if (Array.isArray(v)) return v.flatMap(unrolled);
  const o = v as { kind?: unknown; items?: unknown };
  if (o && typeof o === 'object' && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)) return o.items.flatMap(unrolled);
  return [v];
}

/** Creates the objects in the sim (their namespaces too, when missing); answers how many. */
export function seedSim(sim: { api: SimApi; mirror: { registry: { all(): ResourceType[] } } }, objects: readonly SeedObject[], flag: string): number {
  const namespaces = { group: '', version: 'v1', resource: 'namespaces' };
  for (const { where, object } of objects) {
    // Looked up per object: a CRD seeded earlier serves its kind from then on.
    const type = sim.mirror.registry.all().find((t) => groupVersion(t) === object.apiVersion && t.kind === object.kind);
    if (!type) throw new UserError(`${flag} ${where}: the embedded server serves no ${String(object.kind)} in ${String(object.apiVersion)} (seed its CustomResourceDefinition first)`);
    const meta = { ...(object.metadata as Record<string, unknown>) };
    if (type.namespaced) {
      meta.namespace ??= 'default';
      const ns = String(meta.namespace);
      if (!sim.api.get(namespaces, undefined, ns)) sim.api.create(namespaces, { metadata: { name: ns } });
    } else delete meta.namespace;
    const seeded = { ...object, metadata: meta } as SimObject;
    // A built-in kind never holds a field its schema lacks (kube's decoder drops it; kubectl create's default Strict
    // refuses it), so neither does a seed: it would reach watchers that cannot read it (protobuf clients).
    if (!type.crd) {
      const refused = strictBodyError(type, checkFields(type, structuredClone(seeded), undefined, 'Strict'));
      if (refused) throw new UserError(`${flag} ${where}: ${refused.status.message}`);
    }
    try {
      sim.api.create({ group: type.group, version: type.version, resource: type.resource }, seeded);
    } catch (err) {
      throw new UserError(`${flag} ${where}: ${(err as Error).message}`);
    }
  }
  return objects.length;
}
