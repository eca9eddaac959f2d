// The sim's platform admission over HTTP, without kubectl (kubectl-platform-kinds.test.ts drives the same through
// kubectl): a CertificateSigningRequest's `approval` and `status` subresources each change only their own part
// (kube's csrApprovalStrategy / csrStatusStrategy), with kube's condition timestamps, and the one-default rule for
// PriorityClasses lets the default itself be written again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { CSR_PEM, http } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer({ nodes: 0, pods: 0, churn: 0 }); });
afterAll(() => sim.close());

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const csr = (name: string) => ({
  apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
  spec: { request: Buffer.from(CSR_PEM).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
});
const put = (path: string, body: unknown) => http(sim.url, path, { method: 'PUT', body });
type Condition = Record<string, string>;
const byType = (conditions: Condition[]) => Object.fromEntries(conditions.map((c) => [c.type, c]));

describe('CertificateSigningRequest subresources over HTTP', () => {
  it('approval sets only the decision, filling status True and both times; status writes keep the decision', async () => {
    const created = await http(sim.url, CSRS, { method: 'POST', body: csr('jane') });
    expect(created.status).toBe(201);
    const approved = await put(`${CSRS}/jane/approval`, { ...created.json, status: { conditions: [{ type: 'Approved', reason: 'Fine', message: 'ok' }], certificate: 'bm90IGhlcmU=' } });
    expect(approved.status).toBe(200);
    const decision = approved.json.status.conditions[0];
    expect(decision).toMatchObject({ type: 'Approved', status: 'True', reason: 'Fine' });
    expect(decision.lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(decision.lastTransitionTime).toBe(decision.lastUpdateTime);
    // approval writes conditions only: a certificate in its body is not stored.
    expect(approved.json.status.certificate).toBeUndefined();

    // A signer's status write: its own conditions are stamped and stored, a decision in its body is not (the
    // stored Approved stays, a Denied it sends is dropped).
    const signed = await put(`${CSRS}/jane/status`, { ...approved.json, status: { conditions: [
      { type: 'Denied', status: 'True', reason: 'Sneaky' },
      { type: 'Failed', status: 'True', reason: 'SignerFailed', lastTransitionTime: '2020-01-01T00:00:00Z' },
    ] } });
    expect(signed.status).toBe(200);
    const conditions = byType(signed.json.status.conditions);
    expect(Object.keys(conditions).sort()).toEqual(['Approved', 'Failed']);
    expect(conditions.Approved).toEqual(decision);
    expect(conditions.Failed).toMatchObject({ reason: 'SignerFailed', lastTransitionTime: '2020-01-01T00:00:00Z' });
    expect(conditions.Failed.lastUpdateTime).toMatch(/Z$/);

    // The same condition sent again without its times keeps its transition time (its status did not change).
    const again = await put(`${CSRS}/jane/status`, { ...signed.json, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'StillFailed' }] } });
    expect(byType(again.json.status.conditions).Failed).toMatchObject({ reason: 'StillFailed', lastTransitionTime: '2020-01-01T00:00:00Z' });
    // A status write with no conditions leaves the decision, and no empty list.
    const none = await put(`${CSRS}/jane/status`, { ...again.json, status: {} });
    expect(none.json.status.conditions.map((c: Condition) => c.type)).toEqual(['Approved']);
  });

  it('a status write on a request without conditions stores none (no empty list)', async () => {
    const created = await http(sim.url, CSRS, { method: 'POST', body: csr('bare') });
    const r = await put(`${CSRS}/bare/status`, { ...created.json, status: { conditions: [] } });
    expect(r.status).toBe(200);
    expect(r.json.status?.conditions).toBeUndefined();
  });
});

describe('the PriorityClass default over HTTP', () => {
  const PCS = '/apis/scheduling.k8s.io/v1/priorityclasses';
  it('the default class may be written again; a second default is refused with kube\'s 403', async () => {
    const first = await http(sim.url, PCS, { method: 'POST', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'usual' }, value: 10, globalDefault: true } });
    expect(first.status).toBe(201);
    const rewritten = await put(`${PCS}/usual`, { ...first.json, description: 'the default' });
    expect(rewritten.status).toBe(200);
    const second = await http(sim.url, PCS, { method: 'POST', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'other' }, value: 20, globalDefault: true } });
    expect(second.status).toBe(403);
    expect(second.json).toMatchObject({ reason: 'Forbidden', message: 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass usual is already marked as default. Only one default can exist', details: { name: 'other', group: 'scheduling.k8s.io', kind: 'priorityclasses' } });
    // Not a default: no question asked.
    expect((await http(sim.url, PCS, { method: 'POST', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'plain' }, value: 5 } })).status).toBe(201);
  });
});
