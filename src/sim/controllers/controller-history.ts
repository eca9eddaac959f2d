// kube's pkg/controller/history for the StatefulSet and DaemonSet controllers: the ControllerRevisions a workload owns
// (one per distinct pod template it has had), their data (the strategic merge patch that restores the template, as
// kube stores it), their numbers, and the writes the controllers make to them.
import type { SimObject } from '../api.js';
import type { LabelSelector } from '../label-selector.js';
import type { ResourceType } from '../registry.js';
import { claim } from './claim.js';
import type { ControllerContext } from './controller-context.js';
import { deleteObject } from './graceful-delete.js';
import { controllerRefTo } from './owner-references.js';
import { safeEncode } from './pod-template-hash.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** The label on a revision (and on the pods made from it) naming its hash. */
export const REVISION_HASH_LABEL = 'controller-revision-hash';

/** Revision names are at most 253 characters: kube cuts the owner's name to 223 before "-<hash>". */
const MAX_PREFIX = 223;

/** A copy of `v` whose object keys are in the order Go's json.Marshal writes a map's: sorted. */
function sortedKeys(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortedKeys);
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).filter((key) => o[key] !== undefined).sort()) out[k] = sortedKeys(o[k]);
  return out;
}

/**
 * The data of a revision of `workload`: `{"spec":{"template":{"$patch":"replace",…}}}`, the patch kube's getPatch
 * builds (a map marshalled by Go, so keys sorted). kubectl applies it to roll back and compares its own encoding of
 * the workload with it byte for byte to see whether a rollback changes anything.
 */
export function templatePatch(workload: SimObject): Json {
  const template = ((workload.spec as Json | undefined)?.template ?? {}) as Json;
  return sortedKeys({ spec: { template: { ...template, $patch: 'replace' } } }) as Json;
}

/** The pod template a revision restores (its data without the directive). */
export function revisionTemplate(revision: SimObject): Json {
  const template = { ...(((revision.data as Json | undefined)?.spec?.template ?? {}) as Json) };
  delete template.$patch;
  return template;
}

/** Whether two revisions hold the same state (kube's EqualRevision compares the raw data). */
export function sameData(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));
}

export function revisionNumber(revision: SimObject): number {
  return typeof revision.revision === 'number' ? revision.revision : 0;
}

/** One more than the highest revision number (1 for a workload without history). */
export function nextRevision(revisions: SimObject[]): number {
  return revisions.reduce((max, r) => Math.max(max, revisionNumber(r)), 0) + 1;
}

/**
 * HashControllerRevision: FNV-32 (not 1a) of the data's JSON, then the collision count in decimal, spelled in the
 * name alphabet. kube hashes Go's bytes of the data; the sim hashes its own, so the values differ from a cluster's
 * for the same template but are equal for equal data and change with the collision count.
 */
export function hashRevision(data: unknown, collisionCount: number): string {
  let h = 0x811c9dc5;
  const feed = (bytes: Uint8Array): void => {
    for (const b of bytes) {
      h = Math.imul(h, 0x01000193) >>> 0;
      h = (h ^ b) >>> 0;
    }
  };
  feed(new TextEncoder().encode(JSON.stringify(sortedKeys(data))));
  feed(new TextEncoder().encode(String(collisionCount)));
  return safeEncode(String(h >>> 0));
}

/** ControllerRevisionName: "<owner>-<hash>", the owner's name cut to fit. */
export function revisionName(owner: string, hash: string): string {
  return `${owner.length > MAX_PREFIX ? owner.slice(0, MAX_PREFIX) : owner}-${hash}`;
}

/** What a new revision carries besides its data. */
export interface RevisionSpec {
  data: Json;
  revision: number;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  /** The name and hash label for a collision count. */
  naming(collisionCount: number): { name: string; hash: string };
}

/** The ControllerRevisions of one kind of owner, read and written through the store as kube-controller-manager does. */
export class RevisionHistory {
  readonly type: ResourceType;

  constructor(private readonly ctx: ControllerContext, private readonly ownerType: ResourceType) {
    this.type = ctx.store.resolve({ group: 'apps', version: 'v1', resource: 'controllerrevisions' });
  }

  /** The revisions `owner` controls after adoption and release (ClaimControllerRevisions), oldest number first. */
  list(owner: SimObject, selector: LabelSelector): SimObject[] {
    const revisions = claim(this.ctx, owner, this.ownerType, this.type, selector);
    return revisions.sort((a, b) => revisionNumber(a) - revisionNumber(b)
      || String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? ''))
      || (a.metadata.name! < b.metadata.name! ? -1 : 1));
  }

  /**
   * CreateControllerRevision: a name already taken by the same data is that revision; one taken by other data is a
   * hash collision, counted, and the next name is tried. Returns the revision and the collision count it ended at.
   */
  create(owner: SimObject, spec: RevisionSpec, collisionCount: number): { revision: SimObject; collisionCount: number } {
    const { store } = this.ctx;
    for (let collisions = collisionCount; ; collisions++) {
      const { name, hash } = spec.naming(collisions);
      const taken = store.getStored(this.type, owner.metadata.namespace, name)?.obj;
      if (taken) {
        if (sameData(taken.data, spec.data)) return { revision: taken, collisionCount: collisions };
        continue;
      }
      const revision = store.createObject(this.type, {
        apiVersion: 'apps/v1', kind: 'ControllerRevision',
        metadata: {
          name, namespace: owner.metadata.namespace,
          labels: { ...spec.labels, [REVISION_HASH_LABEL]: hash },
          ...(spec.annotations && Object.keys(spec.annotations).length ? { annotations: { ...spec.annotations } } : {}),
          ownerReferences: [controllerRefTo(owner, this.ownerType)],
        },
        data: spec.data,
        revision: spec.revision,
      }, writtenBy(this.type, CONTROLLER_MANAGER));
      return { revision, collisionCount: collisions };
    }
  }

  /** UpdateControllerRevision: gives an existing revision a new number (a rollback to it makes it the newest). */
  renumber(revision: SimObject, to: number): SimObject {
    if (revisionNumber(revision) === to) return revision;
    return this.ctx.store.updateObject(this.type, { ...revision, revision: to }, writtenBy(this.type, CONTROLLER_MANAGER));
  }

  delete(revision: SimObject): void {
    deleteObject(this.ctx.store, this.type, revision.metadata.namespace, revision.metadata.name!, { preconditions: { uid: revision.metadata.uid } });
  }
}
