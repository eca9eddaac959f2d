// Custom resources validated against their CRD's structural schema as kube-apiserver validates them: 422 with kube's
// field paths and messages, defaults filled in, unknown fields pruned, CEL rules stored with a Warning that says
// they were not evaluated. Real kubectl and the Python client are the judges of the wire answers.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { http, kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-crd-validation-');
const kubectl = fx.kubectl;
const W = '/apis/example.com/v1/namespaces/default/widgets';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object', required: ['size'],
              'x-kubernetes-validations': [{ rule: 'self.size <= 100', message: 'too big' }],
              properties: {
                size: { type: 'integer', minimum: 1, maximum: 10, exclusiveMaximum: true },
                color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
                email: { type: 'string', format: 'email' },
                tags: { type: 'array', maxItems: 2, minItems: 1, items: { type: 'string' } },
                labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
                port: { 'x-kubernetes-int-or-string': true },
                note: { type: 'string', nullable: true },
                mode: { type: 'string' },
                extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                replicas: { type: 'integer', default: 1 },
              },
            },
          },
        },
      },
    }],
  },
};

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });
const post = (body: unknown, query = '') => http(fx.sim.url, `${W}${query}`, { method: 'POST', body });

describe('custom resources validated against their structural schema', () => {
  it('a string where the schema says integer is kube\'s 422 with its path and message', async () => {
    expect((await http(fx.sim.url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: crd })).status).toBe(201);
    const r = await post(widget('w1', { size: 'big' }));
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: 'Widget.example.com "w1" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
      details: { name: 'w1', group: 'example.com', kind: 'Widget', causes: [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.size in body must be of type integer: "string"', field: 'spec.size' }] },
    });
    // kubectl (client-side validation off, as against any server) prints kube's answer.
    const f = fx.file('w1.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: big\n');
    const k = await kubectl('create', '-f', f, '--validate=false');
    expect(k.code).not.toBe(0);
    // (After the Warning line about the CRD's CEL rule, below.)
    expect(k.stderr.trim().split('\n').at(-1)).toBe('The Widget "w1" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"');
  });

  it('required, enum, minimum/exclusive maximum, pattern, length, format, items and properties: each kube\'s field error', async () => {
    const missing = await post(widget('w2', {}));
    expect(missing.json.message).toBe('Widget.example.com "w2" is invalid: spec.size: Required value');
    const cases: [Record<string, unknown>, string][] = [
      [{ size: 0 }, 'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1'],
      [{ size: 10 }, 'spec.size: Invalid value: 10: spec.size in body should be less than 10'],
      [{ size: 1.5 }, 'spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"'],
      [{ size: 1, color: 'green' }, 'spec.color: Unsupported value: "green": supported values: "red", "blue"'],
      [{ size: 1, name: 'a' }, 'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'],
      [{ size: 1, name: 'abcdef' }, 'spec.name: Too long: may not be longer than 5'],
      [{ size: 1, name: 'AB' }, 'spec.name: Invalid value: "AB": spec.name in body should match \'^[a-z]+$\''],
      [{ size: 1, email: 'nobody' }, 'spec.email: Invalid value: "nobody": spec.email in body must be of type email: "nobody"'],
      [{ size: 1, tags: ['a', 'b', 'c'] }, 'spec.tags: Too many: 3: must have at most 2 items'],
      [{ size: 1, tags: [] }, 'spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items'],
      [{ size: 1, tags: ['a', 7] }, 'spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"'],
      [{ size: 1, labels: { a: 'x', b: 'y' } }, 'spec.labels: Too many: 2: must have at most 1 items'],
      [{ size: 1, port: true }, 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
    ];
    for (const [spec, message] of cases) {
      const r = await post(widget('bad', spec));
      expect([r.status, r.json.message]).toEqual([422, `Widget.example.com "bad" is invalid: ${message}`]);
    }
    const two = await post(widget('two', { size: 0, color: 'green' }));
    expect(two.json.message).toBe('Widget.example.com "two" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1]');
    expect(two.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.color', 'spec.size']);
  });

  it('valid objects are stored with defaults filled, nulls of non-nullable fields dropped, unknown fields pruned with a warning; int-or-string takes both', async () => {
    const r = await post(widget('ok', { size: 3, port: 'http', note: null, mode: null, bogus: 1, extra: { anything: { goes: true } } }));
    expect(r.status).toBe(201);
    expect(r.json.spec).toEqual({ size: 3, port: 'http', note: null, extra: { anything: { goes: true } }, color: 'red', replicas: 1 });
    expect(r.headers.warning).toContain('299 - "unknown field \\"spec.bogus\\""');
    expect((await post(widget('ok2', { size: 3, port: 8080 }))).status).toBe(201);
    const got = await kubectl('get', 'widget', 'ok', '-o', 'jsonpath={.spec.color}/{.spec.replicas}');
    expect(got.stdout).toBe('red/1');
  });

  it('x-kubernetes-validations rules are stored but not evaluated, and every write says so in a Warning', async () => {
    const r = await post(widget('cel', { size: 5 }));
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe('299 - "x-kubernetes-validations rule at spec was not evaluated (the kwatch sim has no CEL evaluator): self.size <= 100"');
    const k = await kubectl('label', 'widget', 'cel', 'a=b');
    expect(k.stderr).toContain('Warning: x-kubernetes-validations rule at spec was not evaluated (the kwatch sim has no CEL evaluator): self.size <= 100');
  });

  it('the Python client gets the 422 as an ApiException with kube\'s body', async () => {
    const script = `
import sys, json
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(config_file=sys.argv[1])
try:
    client.CustomObjectsApi().create_namespaced_custom_object("example.com", "v1", "default", "widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "py"}, "spec": {"size": "big"}})
    print("created")
except ApiException as e:
    print(e.status, json.loads(e.body)["details"]["causes"][0]["field"])
`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', script, fx.kubeconfig], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    });
    expect(out.trim()).toBe('422 spec.size');
  });
});
