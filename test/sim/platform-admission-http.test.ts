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

// A self-signed P-256 certificate for CN=jane (openssl req -x509), what a signer writes to status.certificate.
const CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBdDCCARmgAwIBAgIUKsEpv/co9HHbYYPIQOonGxJbHm4wCgYIKoZIzj0EAwIw
DzENMAsGA1UEAwwEamFuZTAeFw0yNjExMjgyMjUwNTNaFw0zNjExMjUyMjUwNTNa
MA8xDTALBgNVBAMMBGphbmUwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQfVjSV
CR9xiwZVwt+mwZW2xiiu5viCALzhF0ya5YZJdRKnTceS4wHA//Gzf+8fsKBNCI+t
/8+PnvR2P950hB1To1MwUTAdBgNVHQ4EFgQUs0uD9YqEOZfmW51RN/924jWLzacw
HwYDVR0jBBgwFoAUs0uD9YqEOZfmW51RN/924jWLzacwDwYDVR0TAQH/BAUwAwEB
/zAKBggqhkjOPQQDAgNJADBGAiEA6Bz/mNvYa9xQLHuC0s6YGkWEVgtcn/9ArrN1
RoFTnjoCIQD2lAt46ST9kWQtJsnBYHz0di79xCcxkgC+hkXJhoqcYQ==
-----END CERTIFICATE-----
`;
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
    const certificate = Buffer.from(CERT_PEM).toString('base64');
    const signed = await put(`${CSRS}/jane/status`, { ...approved.json, status: { certificate, conditions: [
      { type: 'Denied', status: 'True', reason: 'Sneaky' },
      { type: 'Failed', status: 'True', reason: 'SignerFailed', lastTransitionTime: '2020-01-01T00:00:00Z' },
    ] } });
    expect(signed.status).toBe(200);
    // The rest of a status write's status is stored (csrStatusStrategy keeps only the decisions from the stored object).
    expect(signed.json.status.certificate).toBe(certificate);
    const conditions = byType(signed.json.status.conditions);
    expect(Object.keys(conditions).sort()).toEqual(['Approved', 'Failed']);
    expect(conditions.Approved).toEqual(decision);
    expect(conditions.Failed).toMatchObject({ reason: 'SignerFailed', lastTransitionTime: '2020-01-01T00:00:00Z' });
    expect(conditions.Failed.lastUpdateTime).toMatch(/Z$/);

    // An approval written again keeps the rest of the stored status, the certificate too (csrApprovalStrategy takes
    // only the conditions from its body).
    const reapproved = await put(`${CSRS}/jane/approval`, { ...signed.json, status: { conditions: signed.json.status.conditions } });
    expect(reapproved.status).toBe(200);
    expect(reapproved.json.status.certificate).toBe(certificate);

    // The same condition sent again without its times keeps its transition time (its status did not change).
    const again = await put(`${CSRS}/jane/status`, { ...reapproved.json, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'StillFailed' }] } });
    expect(byType(again.json.status.conditions).Failed).toMatchObject({ reason: 'StillFailed', lastTransitionTime: '2020-01-01T00:00:00Z' });
    // Its status flipped: a new transition time (kube's populateConditionTimestamps keeps the old one only for the same type and status).
    const flipped = await put(`${CSRS}/jane/status`, { ...again.json, status: { conditions: [{ type: 'Failed', status: 'False', reason: 'Retried' }] } });
    expect(flipped.status).toBe(200);
    expect(byType(flipped.json.status.conditions).Failed.lastTransitionTime).not.toBe('2020-01-01T00:00:00Z');
    expect(byType(flipped.json.status.conditions).Failed.lastTransitionTime).toBe(byType(flipped.json.status.conditions).Failed.lastUpdateTime);
    // A status write with no conditions leaves the decision, and no empty list.
    const none = await put(`${CSRS}/jane/status`, { ...flipped.json, status: {} });
    expect(none.json.status.conditions.map((c: Condition) => c.type)).toEqual(['Approved']);
  });

  it('a status write on a request without conditions stores none (no empty list)', async () => {
    const created = await http(sim.url, CSRS, { method: 'POST', body: csr('bare') });
    const r = await put(`${CSRS}/bare/status`, { ...created.json, status: { conditions: [] } });
    expect(r.status).toBe(200);
    expect(r.json.status?.conditions).toBeUndefined();
  });
});

describe('the approval subresource as a client sees it', () => {
  // kube's csrApprovalStrategy.PrepareForUpdate starts from the stored object and takes only the body's conditions,
  // so labels sent with an approval are not stored; the write's managedFields entry names the subresource it came
  // through, "approval" (installer.go builds each path's field manager with that path's subresource).
  it('GET …/approval answers the request; an approval keeps the stored labels and records its manager under "approval"', async () => {
    const created = await http(sim.url, CSRS, { method: 'POST', body: { ...csr('labelled'), metadata: { name: 'labelled', labels: { team: 'a' } } } });
    expect(created.status).toBe(201);
    const read = await http(sim.url, `${CSRS}/labelled/approval`);
    expect(read.status).toBe(200);
    expect(read.json.metadata).toMatchObject({ name: 'labelled', labels: { team: 'a' } });
    const approved = await put(`${CSRS}/labelled/approval?fieldManager=approver`, {
      ...created.json, metadata: { ...created.json.metadata, labels: { team: 'b' } }, status: { conditions: [{ type: 'Approved', reason: 'Fine' }] },
    });
    expect(approved.status).toBe(200);
    expect(approved.json.metadata.labels).toEqual({ team: 'a' });
    const entry = approved.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'approver');
    expect(entry).toMatchObject({ operation: 'Update', subresource: 'approval' });
    expect(Object.keys(entry.fieldsV1)).toEqual(['f:status']);
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
    expect(second.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, message: 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass usual is already marked as default. Only one default can exist', details: { name: 'other', group: 'scheduling.k8s.io', kind: 'priorityclasses' } });
    // Not a default: no question asked.
    expect((await http(sim.url, PCS, { method: 'POST', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'plain' }, value: 5 } })).status).toBe(201);
  });
});
