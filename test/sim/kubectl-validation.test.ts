// Conformance: real kubectl gets kube's 422 for writes kube-apiserver refuses, and with the controllers running a
// refused Deployment starts nothing (issue 11: a selector that missed its template made ~14,000 pods).
import { describe, expect, it } from 'vitest';
import { kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({ controllers: true }, 'kwatch-kubectl-validation-');
const kubectl = fx.kubectl;
const file = fx.file;

function deploymentYaml(name: string, selectorApp: string, templateApp: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: ${selectorApp}
  template:
    metadata:
      labels:
        app: ${templateApp}
    spec:
      containers:
      - name: web
        image: nginx
`;
}

const MISMATCH = 'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`';

describe('validation with kubectl', () => {
  it('create and apply of a Deployment whose selector misses its template fail with kube\'s message, and no pod starts', async () => {
    const manifest = file('bad.yaml', deploymentYaml('bad', 'web', 'other'));
    for (const args of [['create', '-f', manifest], ['apply', '-f', manifest], ['apply', '--server-side', '-f', manifest]]) {
      const r = await kubectl(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(MISMATCH);
    }
    expect((await kubectl('get', 'deployments,replicasets,pods', '-o', 'name')).stdout).toBe('');
  });

  it('a changed selector is refused with field is immutable (patch and apply)', async () => {
    const manifest = file('web.yaml', deploymentYaml('web', 'web', 'web'));
    expect((await kubectl('apply', '-f', manifest)).code).toBe(0);
    const patch = await kubectl('patch', 'deployment', 'web', '--type', 'merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"web","v":"2"}},"template":{"metadata":{"labels":{"v":"2"}}}}}');
    expect(patch.code).toBe(1);
    expect(patch.stderr.trim()).toBe('The Deployment "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
    const moved = file('web2.yaml', deploymentYaml('web', 'moved', 'moved'));
    const apply = await kubectl('apply', '-f', moved);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"moved"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
  });

  it('a pod without containers, a pod spec change and a write to an immutable ConfigMap are refused', async () => {
    const empty = await kubectl('create', '-f', file('p.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } })));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('The Pod "p" is invalid: spec.containers: Required value');
    expect((await kubectl('run', 'r', '--image=nginx')).code).toBe(0);
    const image = await kubectl('set', 'image', 'pod/r', 'r=nginx:2');
    expect(image.code).toBe(0);
    const node = await kubectl('patch', 'pod', 'r', '-p', '{"spec":{"hostname":"x"}}');
    expect(node.code).toBe(1);
    expect(node.stderr).toContain('The Pod "r" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
    expect((await kubectl('apply', '-f', file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: frozen\nimmutable: true\ndata:\n  a: "1"\n'))).code).toBe(0);
    const cm = await kubectl('patch', 'configmap', 'frozen', '-p', '{"data":{"a":"2"}}');
    expect(cm.code).toBe(1);
    expect(cm.stderr.trim()).toBe('The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
  });
});
