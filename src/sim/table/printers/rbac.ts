// ServiceAccounts (NAME SECRETS AGE), RoleBindings and ClusterRoleBindings (NAME ROLE AGE, + wide USERS GROUPS
// SERVICEACCOUNTS).
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN, wide } from '../columns.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

export const serviceAccountPrinter = printer(
  [NAME_COLUMN, column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), AGE_COLUMN],
  (sa, now) => [str(sa.metadata?.name), list(sa.secrets).length, translateTimestampSince(sa.metadata?.creationTimestamp, now)],
);

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
