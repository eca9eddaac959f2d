// What the endpoint refuses before anything reaches the target: an Accept or a body type no API server speaks.
// endpoint.test.ts checks the 406 and the 415 over HTTP; here each rule, as kube-apiserver applies it.
import { describe, expect, it } from 'vitest';
import { refusedMediaType } from '../../src/endpoint/media-types.js';

const refusal = (...a: Parameters<typeof refusedMediaType>) => refusedMediaType(...a)?.status;

describe('refusedMediaType: Accept', () => {
  it('takes no Accept, an empty one, and any type an API server encodes', () => {
    for (const accept of [undefined, '', '   ', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor',
      '*/*', 'application/*', 'Application/JSON', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'text/html, application/json;q=0.5']) {
      expect(refusedMediaType(accept, undefined, false), String(accept)).toBeUndefined();
    }
  });

  it('refuses, with a 406 naming the header, what no API server encodes or what it is asked for with q=0 only', () => {
    for (const accept of ['text/html', 'text/*', 'application/xml', 'application/json;q=0', 'text/html, application/json;q=0']) {
      expect(refusal(accept, undefined, false), accept).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotAcceptable', code: 406,
        message: `kwatch endpoint: Accept ${JSON.stringify(accept)}: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
      });
    }
  });
});

describe('refusedMediaType: the body', () => {
  it('takes every body type an API server decodes, patch types included, in any case and with parameters', () => {
    for (const type of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor', 'application/merge-patch+json',
      'application/strategic-merge-patch+json', 'application/json-patch+json', 'application/apply-patch+yaml', 'application/apply-patch+cbor',
      'Application/JSON; charset=utf-8', ' application/yaml ;charset=utf-8']) {
      expect(refusedMediaType(undefined, type, true, 'PATCH'), type).toBeUndefined();
    }
  });

  it('takes a create or an update without Content-Type as JSON, as kube-apiserver does; a PATCH must name its type', () => {
    expect(refusedMediaType(undefined, undefined, true)).toBeUndefined();
    expect(refusedMediaType(undefined, undefined, true, 'POST')).toBeUndefined();
    expect(refusedMediaType(undefined, '', true, 'PUT')).toBeUndefined();
    for (const method of ['PATCH', 'patch']) {
      expect(refusal(undefined, undefined, true, method), method).toMatchObject({ code: 415, reason: 'UnsupportedMediaType', message: expect.stringContaining('Content-Type "" is not one') as unknown });
    }
  });

  it('refuses, with a 415 naming the type as sent, a body type no API server decodes', () => {
    expect(refusal('application/json', 'text/plain; charset=utf-8', true, 'POST')).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'UnsupportedMediaType', code: 415,
      message: 'kwatch endpoint: the body\'s Content-Type "text/plain; charset=utf-8" is not one an API server decodes (application/json, application/yaml, application/vnd.kubernetes.protobuf, or a patch type)',
    });
  });

  it('does not look at the Content-Type of a request without a body', () => {
    expect(refusedMediaType(undefined, 'text/plain', false, 'DELETE')).toBeUndefined();
    expect(refusedMediaType(undefined, 'text/plain', false, 'PATCH')).toBeUndefined();
  });

  it('answers the Accept first when both are wrong', () => {
    expect(refusal('text/html', 'text/plain', true)?.code).toBe(406);
  });
});
