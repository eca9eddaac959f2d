// The fork of `kwatch reconcile --exec --writes overlay` serves the CRDs a controller installs (issue 37, A7): the
// built CLI between kubectl (driven from a shell, as an operator that installs its own CRD would run) and the embedded
// API server over real HTTP; the sim, read with kubectl directly, shows that nothing reached the target.
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { KUBECTL, kwatch } from './events-helpers.js';

const k = kubectlSim({ seed: 7, nodes: 1, pods: 0, churn: 0 }, 'kwatch-e2e-exec-crds-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: `${k.dir}/cache` });
const exec = (...args: string[]) => kwatch(['reconcile', '--exec', ...args], env());
const sh = (script: string) => ['--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)];

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.forked.example.com}
spec:
  group: forked.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
const GIZMO = 'apiVersion: forked.example.com/v1\nkind: Gizmo\nmetadata: {name: g1, namespace: default}\nspec: {size: 1}\n';

describe('A7: the fork serves the CRDs a controller creates in it', () => {
  it('discovery names the new group; its kind is created, patched, watched and listed through the endpoint; the target never sees any of it', async () => {
    const crd = k.file('gizmo-crd.yaml', CRD);
    const gizmo = k.file('gizmo.yaml', GIZMO);
    const r = await exec('-n', 'default', '--writes', 'overlay', ...sh([
      `kubectl apply -f ${crd}`,
      'kubectl wait --for condition=established crd/gizmos.forked.example.com --timeout=15s',
      'kubectl api-resources --api-group=forked.example.com --no-headers',
      'kubectl get --raw /apis/forked.example.com/v1 | head -c 100; echo',
      // The legacy group list (APIGroupList) too, not only the aggregated one kubectl's discovery reads.
      'kubectl get --raw /apis | grep -oF \'"name":"forked.example.com","versions":[{"groupVersion":"forked.example.com/v1"\'',
      `kubectl create -f ${gizmo}`,
      // kubectl wait watches the object until the patch made in the background lands.
      '{ (sleep 1; kubectl patch gizmo g1 --type=merge -p \'{"spec":{"size":3}}\') & kubectl wait --for=jsonpath={.spec.size}=3 gizmo/g1 --timeout=15s; wait; }',
      'kubectl get gizmos --no-headers -o custom-columns=NAME:.metadata.name,SIZE:.spec.size',
    ].join(' && ')));
    expect(r.stderr).toMatch(/^sh \| gizmos\s+forked\.example\.com\/v1\s+true\s+Gizmo$/m);
    expect(r.stderr).toMatch(/^sh \| \{"kind":"APIResourceList".*"groupVersion":"forked\.example\.com\/v1"/m);
    expect(r.stderr).toMatch(/^sh \| "name":"forked\.example\.com","versions":\[\{"groupVersion":"forked\.example\.com\/v1"$/m);
    expect(r.stderr).toMatch(/^sh \| gizmo\.forked\.example\.com\/g1 created$/m);
    expect(r.stderr).toMatch(/^sh \| gizmo\.forked\.example\.com\/g1 condition met$/m);
    expect(r.stderr).toMatch(/^sh \| g1\s+3$/m);
    expect(r.stdout).toMatch(/endpoint\s+watch\s+default\s+\d+\s+client=kubectl\[\d+\] resource=gizmos\.forked\.example\.com event=start/);
    expect(r.stderr).toMatch(/^fork: 2 objects differ from the target \(written locally\):\n {2}created customresourcedefinitions\.apiextensions\.k8s\.io gizmos\.forked\.example\.com\n {2}created gizmos\.forked\.example\.com default\/g1$/m);
    expect(r.code).toBe(0);
    expect((await k.kubectl('get', 'crd', 'gizmos.forked.example.com')).code).not.toBe(0);
  });

  it('a CRD created in the fork in a group the target already serves: both kinds are in discovery, the new one served by the fork', async () => {
    const crdIn = (plural: string, kind: string) => CRD.replaceAll('gizmos.forked.example.com', `${plural}.shared.example.com`).replace('group: forked.example.com', 'group: shared.example.com').replace('{plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}', `{plural: ${plural}, kind: ${kind}}`);
    expect((await k.kubectl('apply', '-f', k.file('sprocket-crd.yaml', crdIn('sprockets', 'Sprocket')))).code).toBe(0);
    const crd = k.file('cog-crd.yaml', crdIn('cogs', 'Cog'));
    const cog = k.file('cog.yaml', 'apiVersion: shared.example.com/v1\nkind: Cog\nmetadata: {name: c1, namespace: default}\n');
    const r = await exec('-n', 'default', '--writes', 'overlay', ...sh([
      `kubectl apply -f ${crd}`,
      'kubectl wait --for condition=established crd/cogs.shared.example.com --timeout=15s',
      'kubectl api-resources --api-group=shared.example.com --no-headers -o name | tr "\\n" " "; echo',
      'kubectl get --raw /apis/shared.example.com/v1 | grep -o \'"name":"[a-z/]*"\' | tr "\\n" " "; echo',
      // --validate=false: kubectl falls back to /openapi/v2 (protobuf), which the endpoint refuses (406) today.
      `kubectl create --validate=false -f ${cog}`,
      'kubectl get cogs,sprockets --no-headers -o name',
    ].join(' && ')));
    expect(r.stderr).toMatch(/^sh \| cogs\.shared\.example\.com sprockets\.shared\.example\.com $/m);
    expect(r.stderr).toMatch(/^sh \| "name":"sprockets" "name":"cogs" $/m);
    expect(r.stderr).toMatch(/^sh \| cog\.shared\.example\.com\/c1$/m);
    expect(r.code).toBe(0);
    expect((await k.kubectl('get', 'crd', 'cogs.shared.example.com')).code).not.toBe(0);
  });

  it('an object created and deleted only in the fork is not reported as deleted from the target', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', ...sh('kubectl create configmap passing --from-literal=a=b && kubectl delete configmap passing && kubectl label namespace default forked=yes'));
    expect(r.stderr).toMatch(/^sh \| configmap "passing" deleted$/m);
    expect(r.stderr).toMatch(/^fork: 1 object differs from the target \(written locally\):\n {2}updated namespaces default$/m);
    expect(r.stderr).not.toMatch(/^ {2}deleted configmaps default\/passing$/m);
    expect(r.code).toBe(0);
  });
});
