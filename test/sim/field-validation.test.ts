// fieldValidation=Strict|Warn|Ignore over raw HTTP, as kube-apiserver 1.32 answers it: unknown fields are dropped in
// every mode, Strict refuses them (and duplicate fields) with a 400, Warn answers 299 Warning headers, unset means Warn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer(); });
afterAll(() => sim.close());

const D = '/apis/apps/v1/namespaces/default/deployments';
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(sim.url, path, { method, body, headers });

function deployment(name: string, extraSpec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      replicas: 1, selector: { matchLabels: { app: name } }, ...extraSpec,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx', imagePullPolicyy: 'Always' }] } },
    },
  };
}

const warnings = (h: Record<string, string | string[] | undefined>) => {
  const w = h.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : w.split(/,\s*(?=299 )/);
};

describe('fieldValidation on writes', () => {
  it('Strict: a create with unknown fields is a 400 naming each one, and nothing is stored', async () => {
    const r = await req('POST', `${D}?fieldValidation=Strict`, deployment('strict', { foo: 1 }));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400,
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].imagePullPolicyy"' });
    expect((await req('GET', `${D}/strict`)).status).toBe(404);
  });

  it('Strict: duplicate fields in the JSON body are refused too', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' }, data: { a: '1' } }).replace('"data":{"a":"1"}', '"data":{"a":"1","a":"2"}');
    const r = await req('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', body);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"');
  });

  it('Warn (and no directive at all): created, unknown fields dropped, one Warning header per field', async () => {
    for (const [name, q] of [['warn', '?fieldValidation=Warn'], ['unset', '']]) {
      const r = await req('POST', `${D}${q}`, deployment(name, { foo: 1 }));
      expect(r.status, name).toBe(201);
      expect(warnings(r.headers), name).toEqual(['299 - "unknown field \\"spec.foo\\""', '299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolicyy\\""']);
      expect(r.json.spec.foo).toBeUndefined();
      const stored = (await req('GET', `${D}/${name}`)).json;
      expect(stored.spec.foo).toBeUndefined();
      expect(stored.spec.template.spec.containers[0].imagePullPolicyy).toBeUndefined();
    }
  });

  it('Ignore: created, unknown fields dropped silently', async () => {
    const r = await req('POST', `${D}?fieldValidation=Ignore`, deployment('ignore', { foo: 1 }));
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBeUndefined();
    expect(r.json.spec.foo).toBeUndefined();
  });

  it('update and merge patch follow the same directive; an unknown directive is kube\'s 422', async () => {
    const cur = (await req('GET', `${D}/ignore`)).json;
    const put = await req('PUT', `${D}/ignore?fieldValidation=Strict`, { ...cur, spec: { ...cur.spec, bar: true } });
    expect(put.status).toBe(400);
    expect(put.json.message).toBe('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bar"');
    const strictPatch = await req('PATCH', `${D}/ignore?fieldValidation=Strict`, { spec: { bar: true } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(strictPatch.status).toBe(400);
    expect(strictPatch.json.message).toBe('strict decoding error: unknown field "spec.bar"');
    const warnPatch = await req('PATCH', `${D}/ignore`, { spec: { bar: true } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(warnPatch.status).toBe(200);
    expect(warnings(warnPatch.headers)).toEqual(['299 - "unknown field \\"spec.bar\\""']);
    expect(warnPatch.json.spec.bar).toBeUndefined();
    const bad = await req('POST', `${D}?fieldValidation=Loud`, deployment('loud'));
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"');
  });

  it('server-side apply of an undeclared field is kube\'s 500 from the field manager, whatever the directive', async () => {
    const r = await req('PATCH', `${D}/applied?fieldManager=me&fieldValidation=Ignore`, deployment('applied', { foo: 1 }), { 'Content-Type': 'application/apply-patch+yaml' });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'failed to create typed patch object (default/applied; apps/v1, Kind=Deployment): .spec.foo: field not declared in schema' });
    // A list item is named by its key, as structured-merge-diff names it.
    const inList = await req('PATCH', `${D}/applied?fieldManager=me`, deployment('applied'), { 'Content-Type': 'application/apply-patch+yaml' });
    expect(inList.json.message).toBe('failed to create typed patch object (default/applied; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="web"].imagePullPolicyy: field not declared in schema');
  });

  it('custom resources: pruned by their schema, x-kubernetes-preserve-unknown-fields keeps what it covers', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: {
        type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      } } }] },
    };
    expect((await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const W = '/apis/example.com/v1/namespaces/default/widgets';
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2, colour: 'red', extra: { anything: { goes: true } } }, status: { x: 1 } };
    const strict = await req('POST', `${W}?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.colour", unknown field "status"');
    const r = await req('POST', W, body);
    expect(r.status).toBe(201);
    expect(r.json.spec).toEqual({ size: 2, extra: { anything: { goes: true } } });
    expect(r.json.status).toBeUndefined();
  });
});
