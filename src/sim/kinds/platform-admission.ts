// What kube-apiserver does to the platform kinds beyond validating one object: the Priority admission plugin (at
// most one globalDefault PriorityClass), and the CertificateSigningRequest strategies of its `approval` and `status`
// subresources (each may change only its own part of the object).
import { SimApiError, type SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import { qualifiedResource } from '../status.js';
import { kubeTime } from '../object-meta.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});

/** The reads admission needs: the stored objects of one type. */
export interface AdmissionReads { list(type: ResourceType): SimObject[] }

function forbidden(type: ResourceType, name: string, why: string): SimApiError {
  return new SimApiError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: `${qualifiedResource(type.resource, type.group)} "${name}" is forbidden: ${why}`,
    details: { name, group: type.group, kind: type.resource },
  });
}

/** plugin/pkg/admission/priority: a second globalDefault PriorityClass is refused (create and update). */
export function admitPlatformWrite(reads: AdmissionReads, type: ResourceType, next: SimObject): void {
  if (type.group !== 'scheduling.k8s.io' || type.resource !== 'priorityclasses' || next.globalDefault !== true) return;
  const other = reads.list(type).find((pc) => pc.globalDefault === true && pc.metadata.name !== next.metadata.name);
  if (other) throw forbidden(type, next.metadata.name ?? '', `PriorityClass ${other.metadata.name} is already marked as default. Only one default can exist`);
}

export const isCsrType = (type: ResourceType): boolean => type.group === 'certificates.k8s.io' && type.resource === 'certificatesigningrequests';

const DECISIONS = ['Approved', 'Denied'];

/** populateConditionTimestamps: a new or changed condition gets now as its update and transition times. */
function stampConditions(conditions: unknown[], old: unknown[], now: string): unknown[] {
  return conditions.map((c) => {
    const cond = { ...obj(c) };
    const before = old.map(obj).find((o) => o.type === cond.type);
    cond.status ||= 'True';
    cond.lastUpdateTime ??= now;
    cond.lastTransitionTime ??= before && before.status === cond.status ? before.lastTransitionTime ?? now : now;
    return cond;
  });
}

/**
 * A write of a CSR's `approval` or `status` subresource, as the object to store: approval changes only the
 * Approved/Denied/Failed conditions, status everything in status but those decisions (kube's csrApprovalStrategy and
 * csrStatusStrategy). Both keep the stored spec; the store's status path keeps the stored metadata.
 */
export function csrSubresourceWrite(subresource: 'approval' | 'status', stored: SimObject, body: SimObject, now = new Date()): SimObject {
  const oldStatus = obj(stored.status), newStatus = obj(body.status);
  const oldConds = Array.isArray(oldStatus.conditions) ? oldStatus.conditions : [];
  const newConds = Array.isArray(newStatus.conditions) ? newStatus.conditions : [];
  const isDecision = (c: unknown) => DECISIONS.includes(String(obj(c).type));
  const stamp = (conds: unknown[]) => stampConditions(conds, oldConds, kubeTime(now));
  const conditions = subresource === 'approval'
    ? stamp(newConds)
    : [...oldConds.filter(isDecision), ...stamp(newConds.filter((c) => !isDecision(c)))];
  const status: Json = subresource === 'approval' ? { ...oldStatus } : { ...newStatus };
  if (conditions.length) status.conditions = conditions; else delete status.conditions;
  return { ...body, spec: stored.spec, status };
}
