// Server-side apply with a YAML body (application/apply-patch+yaml carrying YAML) and YAML object bodies
// (application/yaml), read as kube reads them with sigs.k8s.io/yaml; kubectl reads back what was stored.
import { describe, expect, it } from 'vitest';
import { http, kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-apply-yaml-');
const CM = '/api/v1/namespaces/default/configmaps';
const send = (method: string, path: string, body: string, type: string) => http(fx.sim.url, path, { method, body, headers: { 'Content-Type': type } });

const applied = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    tier: "1"
data:
  mode: fast    # a comment
  retries: "3"
`;

describe('YAML bodies', () => {
  it('apply-patch+yaml with YAML creates, then merges, recording the manager as kube does', async () => {
    const created = await send('PATCH', `${CM}/settings?fieldManager=yaml-writer`, applied, 'application/apply-patch+yaml');
    expect(created.status).toBe(201);
    expect(created.json.data).toEqual({ mode: 'fast', retries: '3' });
    expect(created.json.metadata.managedFields).toMatchObject([{ manager: 'yaml-writer', operation: 'Apply', fieldsType: 'FieldsV1' }]);
    expect(created.json.metadata.managedFields[0].fieldsV1).toEqual({ 'f:data': { 'f:mode': {}, 'f:retries': {} }, 'f:metadata': { 'f:labels': { 'f:tier': {} } } });
    const again = await send('PATCH', `${CM}/settings?fieldManager=yaml-writer`, applied.replace('fast', 'slow').replace('  retries: "3"\n', ''), 'application/apply-patch+yaml');
    expect(again.status).toBe(200);
    // The field the manager no longer applies is pruned, as SSA does.
    expect(again.json.data).toEqual({ mode: 'slow' });
    const got = await fx.kubectl('get', 'configmap', 'settings', '-o', 'jsonpath={.data.mode}');
    expect(got.stdout).toBe('slow');
  });

  it('a body that is not YAML is kube\'s 400 "error decoding YAML: …"', async () => {
    const r = await send('PATCH', `${CM}/bad?fieldManager=m`, 'data: [1, 2\nmetadata: {', 'application/apply-patch+yaml');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(r.json.message).toMatch(/^error decoding YAML: /);
  });

  it('YAML 1.1 scalars: an unquoted `yes` is a boolean, which a ConfigMap\'s data cannot hold', async () => {
    const r = await send('PATCH', `${CM}/bools?fieldManager=m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bools\ndata:\n  on: yes\n', 'application/apply-patch+yaml');
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/cannot unmarshal bool into Go struct field ConfigMap\.data of type string$/);
  });

  it('POST with Content-Type application/yaml creates the object', async () => {
    const r = await send('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n', 'application/yaml');
    expect(r.status).toBe(201);
    expect(r.json.data).toEqual({ k: 'v' });
  });
});
