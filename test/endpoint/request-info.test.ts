import { describe, expect, it } from 'vitest';
import { isQuestion, isWrite, queryTrue, requestInfo } from '../../src/endpoint/request-info.js';

describe('requestInfo', () => {
  it('reads group, version, resource, namespace, name, subresource and verb as kube-apiserver does', () => {
    expect(requestInfo('GET', '/apis/apps/v1/namespaces/shop/deployments/web/status')).toMatchObject({ isResource: true, verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'shop', name: 'web', subresource: 'status' });
    expect(requestInfo('GET', '/api/v1/pods?watch=1&resourceVersion=5')).toMatchObject({ verb: 'watch', resource: 'pods', namespace: undefined });
    expect(requestInfo('GET', '/api/v1/watch/namespaces/a/configmaps')).toMatchObject({ verb: 'watch', namespace: 'a', resource: 'configmaps' });
    expect(requestInfo('DELETE', '/api/v1/namespaces/a/configmaps')).toMatchObject({ verb: 'deletecollection' });
    expect(requestInfo('PATCH', 'http://127.0.0.1:1/api/v1/nodes/n1')).toMatchObject({ verb: 'patch', resource: 'nodes', name: 'n1' });
  });

  it('tells the namespace object from the resources inside it', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/shop')).toMatchObject({ resource: 'namespaces', name: 'shop', namespace: undefined });
    expect(requestInfo('PUT', '/api/v1/namespaces/shop/finalize')).toMatchObject({ resource: 'namespaces', name: 'shop', subresource: 'finalize', verb: 'update' });
    expect(requestInfo('GET', '/api/v1/namespaces/shop/pods')).toMatchObject({ resource: 'pods', namespace: 'shop', verb: 'list' });
  });

  it('is not a resource for discovery, OpenAPI and health paths', () => {
    for (const p of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/openapi/v3', '/version', '/healthz']) expect(requestInfo('GET', p).isResource).toBe(false);
  });

  it('counts as writes what stores something, not the questions asked by create (reviews, TokenRequests)', () => {
    expect(isWrite(requestInfo('POST', '/api/v1/namespaces/a/configmaps'))).toBe(true);
    expect(isWrite(requestInfo('DELETE', '/apis/apps/v1/namespaces/a/deployments/web'))).toBe(true);
    expect(isWrite(requestInfo('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'))).toBe(false);
    expect(isWrite(requestInfo('POST', '/api/v1/namespaces/a/serviceaccounts/default/token'))).toBe(false);
    expect(isWrite(requestInfo('GET', '/api/v1/namespaces/a/configmaps'))).toBe(false);
  });

  it('asks questions only of the built-in review kinds and a ServiceAccount\'s token subresource', () => {
    for (const r of ['tokenreviews', 'selfsubjectreviews']) expect(isQuestion(requestInfo('POST', `/apis/authentication.k8s.io/v1/${r}`)), r).toBe(true);
    for (const r of ['subjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews']) expect(isQuestion(requestInfo('POST', `/apis/authorization.k8s.io/v1/${r}`)), r).toBe(true);
    expect(isQuestion(requestInfo('POST', '/apis/authorization.k8s.io/v1/namespaces/a/localsubjectaccessreviews'))).toBe(true);
    for (const p of ['/apis/example.com/v1/namespaces/a/codereviews', '/apis/example.com/v1/tokenreviews', '/api/v1/namespaces/a/pods/p/token', '/apis/example.com/v1/namespaces/a/serviceaccounts/s/token']) {
      expect(isQuestion(requestInfo('POST', p)), p).toBe(false);
      expect(isWrite(requestInfo('POST', p)), p).toBe(true);
    }
    expect(isQuestion(requestInfo('PUT', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x'))).toBe(false);
  });

  it('keeps a proxy\'s path past the subresource, as kube\'s RequestInfoFactory does, so a proxied write is a write', () => {
    expect(requestInfo('POST', '/api/v1/namespaces/a/pods/web/proxy/admin/reset?x=1')).toMatchObject({ isResource: true, verb: 'create', resource: 'pods', name: 'web', subresource: 'proxy', subpath: 'admin/reset' });
    expect(requestInfo('DELETE', '/api/v1/nodes/n1/proxy/pods')).toMatchObject({ isResource: true, verb: 'delete', resource: 'nodes', name: 'n1', subresource: 'proxy', subpath: 'pods' });
    expect(isWrite(requestInfo('PUT', '/api/v1/namespaces/a/services/web:80/proxy/x/y'))).toBe(true);
  });

  it('reads booleans as Go does', () => {
    for (const t of ['1', 't', 'T', 'true', 'TRUE', 'True']) expect(queryTrue(t)).toBe(true);
    for (const f of [null, '', '0', 'false', 'yes']) expect(queryTrue(f)).toBe(false);
  });
});
