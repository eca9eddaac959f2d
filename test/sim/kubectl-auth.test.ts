// `kubectl auth can-i` (and --list, --as), `auth whoami`, `create token` and a token's use, judged by real kubectl 1.32
// against a sim with users: answers come from the same RBAC the sim enforces on requests, over its stored roles.
import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/sim/clock.js';
import { http, kubectlSim } from './sim-helpers.js';

let clockOffsetMs = 0;
// The sim's clock, moved forward to expire a token (nothing in this file schedules on it).
const k = kubectlSim({ tls: true, users: true, clock: { now: () => Date.now() + clockOffsetMs, at: systemClock.at } }, 'kwatch-kubectl-auth-');
const dev = (...args: string[]) => k.kubectl('--context', 'kwatch-sim-dev', ...args);
/** kubectl as whoever holds `token` (the dev context supplies the server and its CA). */
const withToken = (token: string, ...args: string[]) => k.kubectl('--context', 'kwatch-sim-dev', '--token', token, ...args);

function claimsOf(token: string): any {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

async function ok(p: ReturnType<typeof k.kubectl>): Promise<string> {
  const r = await p;
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

/*
 * The namespaces, roles and bindings a test's checks stand on, made by the admin in one `kubectl create -f` of
 * several documents (they were a typed `kubectl create` each: kubectl-kinds.test.ts judges those commands).
 */
let setUps = 0;
const setUp = (...docs: string[]) => ok(k.kubectl('create', '-f', k.file(`setup-${++setUps}.yaml`, docs.join('---\n'))));
const namespace = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`;
const rule = (verbs: string[], resources: string[], resourceNames?: string[]) =>
  `{apiGroups: [""], resources: [${resources.join(', ')}], verbs: [${verbs.join(', ')}]${resourceNames ? `, resourceNames: [${resourceNames.join(', ')}]` : ''}}`;
const role = (namespace: string, name: string, ...rules: string[]) =>
  `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: ${name}, namespace: ${namespace}}\nrules: [${rules.join(', ')}]\n`;
const userDev = '{kind: User, apiGroup: rbac.authorization.k8s.io, name: dev}';
const roleBinding = (namespace: string, name: string, roleName: string, subject: string) =>
  `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ${name}, namespace: ${namespace}}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${roleName}}\nsubjects: [${subject}]\n`;

describe('kubectl auth can-i', () => {
  it('says yes to the admin, and to dev only inside its namespace', async () => {
    expect(await ok(k.kubectl('auth', 'can-i', 'create', 'pods'))).toBe('yes\n');
    expect(await ok(k.kubectl('auth', 'can-i', 'delete', 'deployments.apps', '-A'))).toBe('yes\n');
    expect(await ok(dev('auth', 'can-i', 'create', 'pods'))).toBe('yes\n');
    const no = await dev('auth', 'can-i', 'create', 'pods', '-n', 'default');
    expect(no.stdout).toBe('no\n');
    expect(no.code).toBe(1);
    expect((await dev('auth', 'can-i', 'list', 'nodes', '-A')).stdout).toBe('no\n');
  });

  it('follows a Role and RoleBinding the admin creates, for can-i and for the request itself', async () => {
    expect((await dev('get', 'configmaps', '-n', 'default')).stderr.trim()).toBe('Error from server (Forbidden): configmaps is forbidden: User "dev" cannot list resource "configmaps" in API group "" in the namespace "default"');
    await setUp(role('default', 'cm-reader', rule(['get', 'list'], ['configmaps'])), roleBinding('default', 'dev-cm-reader', 'cm-reader', userDev));
    expect(await ok(dev('auth', 'can-i', 'list', 'configmaps', '-n', 'default'))).toBe('yes\n');
    expect((await dev('auth', 'can-i', 'delete', 'configmaps', '-n', 'default')).stdout).toBe('no\n');
    expect((await dev('get', 'configmaps', '-n', 'default')).code).toBe(0);
    expect((await dev('delete', 'configmap', 'kube-root-ca.crt', '-n', 'default')).stderr.trim()).toBe('Error from server (Forbidden): configmaps "kube-root-ca.crt" is forbidden: User "dev" cannot delete resource "configmaps" in API group "" in the namespace "default"');
  });

  it('answers for the subresource asked about (can-i --subresource=log): a role for pods is not one for pods/log', async () => {
    await setUp(namespace('logs'), role('logs', 'pod-reader', rule(['get'], ['pods'])), roleBinding('logs', 'dev-pod-reader', 'pod-reader', userDev));
    expect(await ok(dev('auth', 'can-i', 'get', 'pods', '-n', 'logs'))).toBe('yes\n');
    const log = await dev('auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'logs');
    expect(log.stdout).toBe('no\n');
    expect(log.code).toBe(1);
    await setUp(role('logs', 'log-reader', rule(['get'], ['pods/log'])), roleBinding('logs', 'dev-log-reader', 'log-reader', userDev));
    expect(await ok(dev('auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'logs'))).toBe('yes\n');
    expect((await dev('auth', 'can-i', 'get', 'pods', '--subresource=exec', '-n', 'logs')).stdout).toBe('no\n');
  });

  it('prints RBAC\'s reason when a binding names a role that does not exist', async () => {
    await setUp(namespace('ghosts'), roleBinding('ghosts', 'dev-ghost', 'ghost', userDev));
    const r = await dev('auth', 'can-i', 'get', 'pods', '-n', 'ghosts');
    expect(r.stdout).toBe('no - RBAC: role.rbac.authorization.k8s.io "ghost" not found\n');
    expect((await dev('get', 'pods', '-n', 'ghosts')).stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "ghosts": RBAC: role.rbac.authorization.k8s.io "ghost" not found');
  });

  it('lists what a user may do (--list), from its roles', async () => {
    await setUp(namespace('listing'), role('listing', 'pod-watcher', rule(['get', 'list', 'watch'], ['pods'], ['web'])), roleBinding('listing', 'dev-pod-watcher', 'pod-watcher', userDev));
    const out = await ok(dev('auth', 'can-i', '--list', '-n', 'listing'));
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    expect(rows).toContainEqual(['pods', '[]', '[web]', '[get list watch]']);
    expect(rows).toContainEqual(['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]']);
    expect(rows).toContainEqual(['selfsubjectreviews.authentication.k8s.io', '[]', '[]', '[create]']);
    expect(rows).toContainEqual(['[/version]', '[]', '[get]']);
    expect(rows.some((r) => r[0] === '*.*')).toBe(false);
    // In its own namespace dev is an admin (a RoleBinding to cluster-admin), and the admin everywhere.
    expect((await ok(dev('auth', 'can-i', '--list', '-n', 'dev'))).split('\n')[1]).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/);
    expect((await ok(k.kubectl('auth', 'can-i', '--list'))).split('\n')[1]).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/);
  });

  it('impersonates with --as when RBAC allows the impersonate verb, and refuses it otherwise', async () => {
    expect(await ok(k.kubectl('auth', 'can-i', 'get', 'pods', '--as=dev', '-n', 'dev'))).toBe('yes\n');
    expect((await k.kubectl('auth', 'can-i', 'get', 'pods', '--as=dev', '-n', 'kube-system')).stdout).toBe('no\n');
    expect((await k.kubectl('get', 'pods', '--as=dev', '-n', 'kube-system')).stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "kube-system"');
    const refused = await dev('auth', 'can-i', 'get', 'pods', '--as=admin');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe('Error from server (Forbidden): users "admin" is forbidden: User "dev" cannot impersonate resource "users" in API group "" at the cluster scope');
    await setUp(
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: impersonator}\nrules: [${rule(['impersonate'], ['users'], ['carol'])}]\n`,
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: dev-impersonator}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonator}\nsubjects: [${userDev}]\n`,
    );
    const carol = await ok(dev('auth', 'whoami', '--as=carol'));
    expect(carol).toBe('ATTRIBUTE   VALUE\nUsername    carol\nGroups      [system:authenticated]\n');
  });
});

describe('impersonated groups', () => {
  it('are one per Impersonate-Group line, a comma inside a group kept (kube never splits a line: filters/impersonation.go)', async () => {
    const who = JSON.parse(await ok(k.kubectl('auth', 'whoami', '--as=carol', '--as-group=cn=ops,dc=example', '--as-group=g2', '-o', 'json'))) as { status: { userInfo: { groups: string[] } } };
    expect(who.status.userInfo.groups).toEqual(['cn=ops,dc=example', 'g2', 'system:authenticated']);
  });
});

describe('kubectl auth whoami', () => {
  it('prints the admin\'s and dev\'s user and groups', async () => {
    expect(await ok(k.kubectl('auth', 'whoami'))).toBe('ATTRIBUTE   VALUE\nUsername    admin\nGroups      [system:masters system:authenticated]\n');
    expect(await ok(dev('auth', 'whoami'))).toBe('ATTRIBUTE   VALUE\nUsername    dev\nGroups      [system:authenticated]\n');
  });
});

describe('kubectl create token', () => {
  it('returns an ES256 JWT for the service account, with the audience and lifetime asked for', async () => {
    // The created object as the server answered it: its uid.
    const uid = (await ok(k.kubectl('create', 'serviceaccount', 'robot', '-n', 'default', '-o', 'jsonpath={.metadata.uid}')));
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    const before = Math.floor(Date.now() / 1000);
    const token = (await ok(k.kubectl('create', 'token', 'robot', '-n', 'default', '--audience=x', '--duration=2h'))).trim();
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
    expect(header).toMatchObject({ alg: 'ES256' });
    expect(header.kid).toMatch(/^[\w-]{43}$/);
    const c = claimsOf(token);
    expect(c).toMatchObject({ aud: ['x'], iss: 'https://kubernetes.default.svc.cluster.local', sub: 'system:serviceaccount:default:robot',
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid } } });
    expect(c.exp - c.iat).toBe(7200);
    expect(c.nbf).toBe(c.iat);
    expect(c.iat).toBeGreaterThanOrEqual(before);
    // The signature checks out with the key the issuer publishes (to service accounts too).
    const jwks = JSON.parse(await ok(k.kubectl('get', '--raw', '/openid/v1/jwks')));
    const jwk = jwks.keys.find((key: any) => key.kid === header.kid);
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    const [h, p, sig] = token.split('.');
    expect(verify('sha256', Buffer.from(`${h}.${p}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))).toBe(true);
    const plain = claimsOf((await ok(k.kubectl('create', 'token', 'robot', '-n', 'default'))).trim());
    expect(plain.exp - plain.iat).toBe(3600);
    expect(plain.aud).toEqual(['https://kubernetes.default.svc.cluster.local']);
    const discovery = JSON.parse(await ok(withToken((await ok(k.kubectl('create', 'token', 'robot', '-n', 'default'))).trim(), 'get', '--raw', '/.well-known/openid-configuration')));
    expect(discovery).toEqual({ issuer: 'https://kubernetes.default.svc.cluster.local', jwks_uri: `${k.sim.url}/openid/v1/jwks`, response_types_supported: ['id_token'],
      subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'] });
  });

  it('answers 404 for a missing service account and 422 below ten minutes', async () => {
    const missing = await k.kubectl('create', 'token', 'nobody', '-n', 'default');
    expect(missing.stderr.trim()).toBe('error: failed to create token: serviceaccounts "nobody" not found');
    const short = await k.kubectl('create', 'token', 'robot', '-n', 'default', '--duration=5m');
    expect(short.stderr.trim()).toBe('error: failed to create token: TokenRequest.authentication.k8s.io "robot" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
  });

  it('is accepted as the service account, which RBAC then allows or forbids', async () => {
    await ok(k.kubectl('create', 'serviceaccount', 'lister', '-n', 'default'));
    const token = (await ok(k.kubectl('create', 'token', 'lister', '-n', 'default'))).trim();
    expect(await ok(withToken(token, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}')))
      .toBe('system:serviceaccount:default:lister ["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"]');
    const denied = await withToken(token, 'get', 'pods', '-n', 'default');
    expect(denied.stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:lister" cannot list resource "pods" in API group "" in the namespace "default"');
    await setUp(role('default', 'pod-lister', rule(['list'], ['pods'])), roleBinding('default', 'lister', 'pod-lister', '{kind: ServiceAccount, name: lister, namespace: default}'));
    const allowed = await withToken(token, 'get', 'pods', '-n', 'default');
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toBe('No resources found in default namespace.\n');
    expect((await withToken(token, 'get', 'pods', '-n', 'dev')).stderr).toContain('cannot list resource "pods" in API group "" in the namespace "dev"');
    expect(await ok(k.kubectl('auth', 'can-i', 'list', 'pods', '-n', 'default', '--as=system:serviceaccount:default:lister'))).toBe('yes\n');
  });

  it('answers 401 to an expired token, a forged signature, another audience and a deleted service account', async () => {
    await ok(k.kubectl('create', 'serviceaccount', 'shortlived', '-n', 'default'));
    const unauthorized = 'error: You must be logged in to the server (Unauthorized)';
    const token = (await ok(k.kubectl('create', 'token', 'shortlived', '-n', 'default', '--duration=10m'))).trim();
    await ok(withToken(token, 'auth', 'whoami'));
    const [h, p, s] = token.split('.');
    const forged = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    expect((await withToken(forged, 'auth', 'whoami')).stderr.trim()).toBe(unauthorized);
    const otherClaims = Buffer.from(JSON.stringify({ ...claimsOf(token), sub: 'system:serviceaccount:kube-system:default' })).toString('base64url');
    expect((await withToken(`${h}.${otherClaims}.${s}`, 'auth', 'whoami')).stderr.trim()).toBe(unauthorized);
    const elsewhere = (await ok(k.kubectl('create', 'token', 'shortlived', '-n', 'default', '--audience=x'))).trim();
    expect((await withToken(elsewhere, 'auth', 'whoami')).stderr.trim()).toBe(unauthorized);
    clockOffsetMs = 11 * 60_000;
    try {
      expect((await withToken(token, 'auth', 'whoami')).stderr.trim()).toBe(unauthorized);
    } finally {
      clockOffsetMs = 0;
    }
    await ok(withToken(token, 'auth', 'whoami'));
    await ok(k.kubectl('delete', 'serviceaccount', 'shortlived', '-n', 'default'));
    expect((await withToken(token, 'auth', 'whoami')).stderr.trim()).toBe(unauthorized);
  });
});

describe('the review kinds', () => {
  it('serves them create-only in discovery, with OpenAPI for kubectl explain', async () => {
    const out = await ok(k.kubectl('api-resources', '--api-group=authorization.k8s.io', '-o', 'wide'));
    expect(out).toMatch(/^selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview\s+create\s*$/m);
    expect(out).toMatch(/^localsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+true\s+LocalSubjectAccessReview\s+create\s*$/m);
    expect(await ok(k.kubectl('explain', 'selfsubjectaccessreviews.spec.resourceAttributes.verb'))).toContain('FIELD: verb <string>');
    const get = await k.kubectl('get', 'selfsubjectaccessreviews');
    expect(get.code).not.toBe(0);
    expect(get.stderr).toMatch(/^Error from server \(MethodNotAllowed\)/);
  });

  it('answers a SubjectAccessReview, LocalSubjectAccessReview and TokenReview created from a file; dev may not create the first', async () => {
    const sar = k.file('sar.yaml', 'apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: dev\n  resourceAttributes: {namespace: dev, verb: delete, resource: pods}\n');
    const status = JSON.parse(await ok(k.kubectl('create', '-f', sar, '-o', 'json'))).status;
    expect(status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "dev/dev" of ClusterRole "cluster-admin" to User "dev"' });
    const refused = await dev('create', '-f', sar, '-o', 'json');
    expect(refused.stderr.trim()).toBe('Error from server (Forbidden): error when creating "' + sar + '": subjectaccessreviews.authorization.k8s.io is forbidden: User "dev" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
    const lsar = k.file('lsar.yaml', 'apiVersion: authorization.k8s.io/v1\nkind: LocalSubjectAccessReview\nmetadata: {namespace: default}\nspec:\n  groups: [system:authenticated]\n  resourceAttributes: {namespace: default, verb: get, resource: pods}\n');
    expect(JSON.parse(await ok(k.kubectl('create', '-f', lsar, '-o', 'json'))).status).toEqual({ allowed: false });
    await ok(k.kubectl('create', 'serviceaccount', 'reviewed', '-n', 'default'));
    const token = (await ok(k.kubectl('create', 'token', 'reviewed', '-n', 'default'))).trim();
    const tr = k.file('tr.yaml', `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${token}\n`);
    const review = JSON.parse(await ok(k.kubectl('create', '-f', tr, '-o', 'json'))).status;
    expect(review).toMatchObject({ authenticated: true, audiences: ['https://kubernetes.default.svc.cluster.local'],
      user: { username: 'system:serviceaccount:default:reviewed', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] } });
  });
});

describe('without users', () => {
  const open = kubectlSim({}, 'kwatch-kubectl-auth-open-');
  it('answers everyone as the admin, who may do everything', async () => {
    expect(await ok(open.kubectl('auth', 'can-i', 'create', 'pods'))).toBe('yes\n');
    expect(await ok(open.kubectl('auth', 'whoami'))).toBe('ATTRIBUTE   VALUE\nUsername    admin\nGroups      [system:masters system:authenticated]\n');
    const list = await ok(open.kubectl('auth', 'can-i', '--list'));
    expect(list.split('\n')[1]).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/);
  });

  it('answers bad review and token request bodies with 400 or 422, never 500', async () => {
    const post = (path: string, body: unknown) => http(open.sim.url, path, { method: 'POST', body });
    const ssar = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    expect((await post(ssar, { spec: { resourceAttributes: 'x' } })).json).toMatchObject({ code: 400,
      message: 'json: cannot unmarshal string into Go struct field SelfSubjectAccessReviewSpec.spec.resourceAttributes of type v1.ResourceAttributes' });
    expect((await post(ssar, { spec: {} })).json).toMatchObject({ code: 422, reason: 'Invalid' });
    expect((await post(ssar, [1])).json).toMatchObject({ code: 400 });
    expect((await post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: {} })).json).toMatchObject({ code: 400, message: 'no namespace on request' });
    expect((await post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { expirationSeconds: 'abc' } })).json).toMatchObject({ code: 400,
      message: 'json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64' });
    expect((await post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: {} })).json).toMatchObject({ code: 400, message: 'token is required for TokenReview in authentication' });
  });
});
