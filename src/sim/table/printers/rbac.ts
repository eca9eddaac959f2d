// ServiceAccounts (NAME SECRETS AGE), Roles and ClusterRoles (NAME CREATED AT), RoleBindings and ClusterRoleBindings
// (NAME ROLE AGE, + wide USERS GROUPS SERVICEACCOUNTS).
import { parseTimestamp, translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN, wide } from '../columns.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

/** CreationTimestamp as RFC 3339 in UTC, as printRole writes it. */
function createdAt(obj: PrintableObject): string {
  const t = parseTimestamp(obj.metadata?.creationTimestamp);
  return t === undefined ? '0001-01-01T00:00:00Z' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const CREATED_AT = column('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

export const serviceAccountPrinter = printer(
  [NAME_COLUMN, column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), AGE_COLUMN],
  (sa, now) => [str(sa.metadata?.name), list(sa.secrets).length, translateTimestampSince(sa.metadata?.creationTimestamp, now)],
);

export const rolePrinter = printer([NAME_COLUMN, CREATED_AT], (r) => [str(r.metadata?.name), createdAt(r)]);

function subjects(b: PrintableObject, kind: string): string {
  return list(b.subjects).filter((s) => s?.kind === kind).map((s) => (kind === 'ServiceAccount' ? `${str(s.namespace)}:${str(s.name)}` : str(s.name))).join(', ');
}

export const roleBindingPrinter = printer(
  [
    NAME_COLUMN,
    column('Role', 'string', 'RoleRef is the reference to the role the binding grants.'),
    AGE_COLUMN,
    wide(column('Users', 'string', 'Users in the roleBinding')),
    wide(column('Groups', 'string', 'Groups in the roleBinding')),
    wide(column('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding')),
  ],
  (b, now) => [
    str(b.metadata?.name), `${str(b.roleRef?.kind)}/${str(b.roleRef?.name)}`, translateTimestampSince(b.metadata?.creationTimestamp, now),
    subjects(b, 'User'), subjects(b, 'Group'), subjects(b, 'ServiceAccount'),
  ],
);
