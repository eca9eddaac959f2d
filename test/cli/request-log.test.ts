// The request log's lines for what the e2e runs do not reach: a write's body holding a Secret, a failed request.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isSecretsRequest, requestLog } from '../../src/cli/request-log.js';

function capture(verbosity: number) {
  const out = new PassThrough();
  let text = '';
  out.setEncoding('utf8').on('data', (d: string) => (text += d));
  const log = requestLog(verbosity, out, () => Date.UTC(2026, 10, 26, 8, 30, 22, 169.123))!;
  return { log, text: () => text };
}

describe('requestLog', () => {
  it('is off below -v 6', () => {
    expect(requestLog(5)).toBeUndefined();
  });

  it('masks Secret values in a request body, and Basic credentials in headers', async () => {
    const { log, text } = capture(8);
    const secret = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: Buffer.from('hunter2-secret').toString('base64') } });
    const call = log.begin({ method: 'POST', url: 'https://h/api/v1/namespaces/default/secrets', headers: { Authorization: 'Basic dXNlcjpwYXNz' }, stream: false, body: secret });
    call.response({ status: 201, headers: { 'content-type': 'application/json' }, ms: 3.4 });
    await new Promise((r) => setImmediate(r));
    expect(text()).toMatch(/"Request Body" body="\{.*<masked 14 bytes>/);
    expect(text()).not.toContain(Buffer.from('hunter2-secret').toString('base64'));
    expect(text()).toContain('round_trippers.go:480]     Authorization: Basic <masked>\n');
    expect(text()).not.toContain('dXNlcjpwYXNz');
    expect(text()).toMatch(/round_trippers\.go:581\] Response Status: 201 Created in 3 milliseconds\n/);
    expect(text()).toMatch(/round_trippers\.go:587\] {5}Content-Type: application\/json\n/);
  });

  it('a request that got no answer: kubectl\'s line with an empty status', async () => {
    const { log, text } = capture(6);
    log.begin({ method: 'GET', url: 'https://h/api', headers: {}, stream: false }).failed({ message: 'refused', ms: 1 });
    await new Promise((r) => setImmediate(r));
    expect(text()).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ round_trippers\.go:560\] GET https:\/\/h\/api {2}in 1 milliseconds\n$/);
  });

  it('masks a JSON patch and a strategic-merge patch sent to a Secret, though neither names its kind', async () => {
    const { log, text } = capture(9);
    const b64 = Buffer.from('json-patch-secret').toString('base64');
    const jsonPatch = JSON.stringify([
      { op: 'add', path: '/data/foo', value: b64 },
      { op: 'replace', path: '/stringData', value: { bar: 'whole-map-secret' } },
      { op: 'add', path: '/metadata/labels/x', value: 'kept' },
    ]);
    log.begin({ method: 'PATCH', url: 'https://h/api/v1/namespaces/default/secrets/s', headers: {}, stream: false, body: jsonPatch });
    const smp = JSON.stringify({ metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"foo":"last-applied-secret"}}' } }, data: { foo: b64 } });
    log.begin({ method: 'PATCH', url: 'https://h/api/v1/namespaces/default/secrets/s', headers: {}, stream: false, body: smp });
    await new Promise((r) => setImmediate(r));
    expect(text()).not.toContain(b64);
    expect(text()).not.toContain('whole-map-secret');
    expect(text()).not.toContain('last-applied-secret');
    expect(text()).toContain('\\"path\\":\\"/data/foo\\",\\"value\\":\\"<masked 17 bytes>\\"');
    expect(text()).toContain('\\"value\\":\\"kept\\"');
  });

  it('knows which URLs reach the secrets resource', () => {
    for (const url of ['https://h/api/v1/secrets', 'https://h/api/v1/namespaces/a/secrets', 'https://h/api/v1/namespaces/a/secrets/b?dryRun=All', 'https://h/prefix/api/v1/secrets?watch=true']) {
      expect(isSecretsRequest(url), url).toBe(true);
    }
    for (const url of ['https://h/api/v1/namespaces/secrets', 'https://h/api/v1/namespaces/secrets/pods', 'https://h/api/v1/configmaps', 'https://h/api', 'https://h/apis/apps/v1/deployments']) {
      expect(isSecretsRequest(url), url).toBe(false);
    }
  });
});
