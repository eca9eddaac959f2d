// Conformance: real kubectl against the sim's OpenAPI documents and field validation — explain (first lines as kube
// prints them, --recursive), create --validate=strict|warn with an unknown field, and `no matches for kind` for a kind
// the sim does not serve (kubectl reaches it through /openapi/v2 in protobuf, not `failed to download openapi`).
import { describe, expect, it } from 'vitest';
import { kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-kubectl-openapi-');
const kubectl = fx.kubectl;
const file = fx.file;

const deployment = (name: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1${extra}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers: [{name: web, image: nginx}]
`;

describe('OpenAPI with kubectl', () => {
  it('explain deployment.spec.selector prints GROUP, KIND, VERSION, FIELD and the description', async () => {
    const r = await kubectl('explain', 'deployment.spec.selector');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(0, 5).join('\n')).toBe('GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: selector <LabelSelector>');
    expect(r.stdout).toContain('DESCRIPTION:\n    A label selector is a label query over a set of resources.');
    expect(r.stdout).toMatch(/FIELDS:\n {2}matchExpressions\t<\[\]LabelSelectorRequirement>/);
  });

  it('explain pods --recursive walks the whole schema', async () => {
    const r = await kubectl('explain', 'pods', '--recursive');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2).join('\n')).toBe('KIND:       Pod\nVERSION:    v1');
    expect(r.stdout).toContain('\n  spec\t<PodSpec>\n');
    expect(r.stdout).toContain('\n    containers\t<[]Container> -required-\n');
    expect(r.stdout).toContain('\n      livenessProbe\t<Probe>\n');
  });

  it('create --validate=strict (the default) refuses an unknown field with kube\'s message; --validate=warn warns and creates', async () => {
    const manifest = file('unknown.yaml', deployment('web', '\n  foo: bar'));
    const strict = await kubectl('create', '-f', manifest);
    expect(strict.code).toBe(1);
    expect(strict.stderr.trim()).toBe('Error from server (BadRequest): error when creating "' + manifest + '": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
    const warn = await kubectl('create', '--validate=warn', '-f', manifest);
    expect(warn.code, warn.stderr).toBe(0);
    expect(warn.stderr.trim()).toBe('Warning: unknown field "spec.foo"');
    expect(warn.stdout.trim()).toBe('deployment.apps/web created');
    expect((await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.foo}')).stdout).toBe('');
  });

  it('a kind the sim does not serve gets kubectl\'s `no matches for kind`, not `failed to download openapi`', async () => {
    const manifest = file('foo.yaml', 'apiVersion: apps/v1\nkind: Foo\nmetadata: {name: f}\n');
    const r = await kubectl('create', '-f', manifest);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no matches for kind "Foo" in version "apps/v1"');
    expect(r.stderr).not.toContain('failed to download openapi');
  });

  it('a CRD\'s openAPIV3Schema is served: explain shows its fields, strict validation refuses what it lacks', async () => {
    const crd = file('crd.yaml', `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A Gadget does things.
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, description: How big the gadget is.}
`);
    expect((await kubectl('create', '-f', crd)).code).toBe(0);
    const explain = await kubectl('explain', 'gadgets.spec.size');
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout.split('\n').slice(0, 5).join('\n')).toBe('GROUP:      example.com\nKIND:       Gadget\nVERSION:    v1\n\nFIELD: size <integer>');
    expect(explain.stdout).toContain('How big the gadget is.');
    const bad = await kubectl('create', '-f', file('g.yaml', 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: 1, colour: red}\n'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.colour"');
  });

  it('client-side apply still merges containers by name now that /openapi/v3 has schemas: a container another writer added stays', async () => {
    const manifest = (image: string) => file('merge.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: merge}
spec:
  selector: {matchLabels: {app: merge}}
  template:
    metadata: {labels: {app: merge}}
    spec:
      containers: [{name: web, image: "${image}"}]
`);
    expect((await kubectl('apply', '-f', manifest('nginx'))).code).toBe(0);
    expect((await kubectl('patch', 'deployment', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}')).code).toBe(0);
    const again = await kubectl('apply', '-f', manifest('nginx:2'));
    expect(again.code, again.stderr).toBe(0);
    const got = await kubectl('get', 'deployment', 'merge', '-o', 'jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}');
    // The sidecar stays, and first: kube's strategic merge puts a container the patch adds ahead of the live ones
    // (strategicpatch normalizeElementOrder/mergeSortedSlice; kubectl's "update an API object with kubectl patch"
    // task shows the same), and apply's $setElementOrder [web] keeps the live sidecar before web.
    expect(got.stdout.trim()).toBe('sidecar=busybox web=nginx:2');
  });
});
