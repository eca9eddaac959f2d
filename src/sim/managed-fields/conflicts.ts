// Apply conflicts and the 409 Status kube answers with (managedfields NewConflictError / errors.NewApplyConflict).
import { SimApiError } from '../api.js';
import { pathString, type PathElement } from './field-set.js';

/** Who owns a field, as the conflict printer needs it. */
export interface ManagerId { manager: string; operation: 'Update' | 'Apply'; apiVersion: string; subresource?: string }

export interface Conflict { owner: ManagerId; path: PathElement[] }

/** `"kubectl-patch" using v1`, `"ctrl" with subresource "status" using v1`, `"kubectl"` (appliers: no version). */
export function printManager(m: ManagerId): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

const managerOrder = (m: ManagerId): string => `${m.manager}\u0000${m.operation}\u0000${m.subresource ?? ''}`;

/** The 409 Conflict for an apply that would change fields other managers own (and was not forced). */
export function conflictError(conflicts: Conflict[]): SimApiError {
  const sorted = [...conflicts].sort((x, y) => {
    const a = managerOrder(x.owner), b = managerOrder(y.owner);
    if (a !== b) return a < b ? -1 : 1;
    const pa = pathString(x.path), pb = pathString(y.path);
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  });
  const causes = sorted.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.owner)}`, field: pathString(c.path) }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0].owner)}: ${pathString(sorted[0].path)}`;
  } else {
    const lines: string[] = [];
    let last = '';
    for (const c of sorted) {
      const id = managerOrder(c.owner);
      if (id !== last) { lines.push(`conflicts with ${printManager(c.owner)}:`); last = id; }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict', details: { causes }, code: 409 });
}
