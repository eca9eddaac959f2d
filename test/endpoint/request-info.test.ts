import { describe, expect, it } from 'vitest';
import { isQuestion, isWrite, objectKey, originForm, queryTrue, requestInfo, resourceName } from '../../src/endpoint/request-info.js';

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
    for (const p of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/openapi/v3', '/version', '/healthz', '/openapi/v3/apis/apps/v1', '/other/a/b/c/d', '/']) expect(requestInfo('GET', p).isResource, p).toBe(false);
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

  it('reads boolean query values as kube decodes ListOptions: only absent, "0" and "false" (any case) are false', () => {
    for (const t of ['1', 't', 'T', 'true', 'TRUE', 'True', 'yes', '', 'f']) expect(queryTrue(t)).toBe(true);
    for (const f of [null, '0', 'false', 'FALSE', 'False']) expect(queryTrue(f)).toBe(false);
    // So kube-apiserver serves `?watch=yes` and `?watch=` as watches (its RequestInfoFactory says verb watch too).
    expect(requestInfo('GET', '/api/v1/namespaces/a/pods?watch=yes').verb).toBe('watch');
    expect(requestInfo('GET', '/api/v1/namespaces/a/pods?watch=').verb).toBe('watch');
    expect(requestInfo('GET', '/api/v1/namespaces/a/pods?watch=False').verb).toBe('list');
  });

  it('reads a proxy client\'s absolute-form target as its path, whatever the scheme', () => {
    expect(originForm('/api/v1/pods?limit=1')).toBe('/api/v1/pods?limit=1');
    expect(originForm('http://127.0.0.1:8001/api/v1/pods?limit=1')).toBe('/api/v1/pods?limit=1');
    expect(originForm('https://[::1]:6443/apis/apps/v1/deployments')).toBe('/apis/apps/v1/deployments');
    expect(originForm('git+ssh://host/api')).toBe('/api');
    expect(originForm('http://host')).toBe('/');
    expect(originForm('http://127.0.0.1:8001/api/')).toBe('/api/');
    // An empty path is "/" in origin form (RFC 9112 §3.2.1), also with a query.
    expect(originForm('http://host?x=1')).toBe('/?x=1');
    expect(requestInfo('GET', 'http://host?watch=1')).toMatchObject({ isResource: false, path: '/' });
    expect(requestInfo('GET', 'http://host?watch=1').query.get('watch')).toBe('1');
    expect(requestInfo('GET', 'https://h:1/api/v1/namespaces/a/pods/p?watch=true')).toMatchObject({ isResource: true, verb: 'watch', namespace: 'a', name: 'p', path: '/api/v1/namespaces/a/pods/p' });
    // Not a URL: kept as it is (and then no resource).
    expect(originForm('*')).toBe('*');
    expect(originForm('1http://h/api/v1/pods')).toBe('1http://h/api/v1/pods');
    expect(requestInfo('GET', '*').isResource).toBe(false);
  });

  it('splits the path from the query, and decodes each segment (a bad escape is kept as sent)', () => {
    const i = requestInfo('GET', '/api/v1/namespaces/a%2Db/configmaps/x%20y?labelSelector=app%3Dweb&limit=5');
    expect(i).toMatchObject({ path: '/api/v1/namespaces/a%2Db/configmaps/x%20y', namespace: 'a-b', name: 'x y', verb: 'get' });
    expect(i.query.get('labelSelector')).toBe('app=web');
    expect(i.query.get('limit')).toBe('5');
    expect(requestInfo('GET', '/api/v1/namespaces/a/configmaps/100%')).toMatchObject({ name: '100%' });
    expect(requestInfo('GET', '/api/v1/pods').query.toString()).toBe('');
  });

  it('reads an escaped slash as a slash and keeps an empty segment, as kube-apiserver reads Go\'s decoded URL.Path', () => {
    expect(requestInfo('POST', '/api/v1%2Fnamespaces%2Fa%2Fconfigmaps')).toMatchObject({ isResource: true, verb: 'create', resource: 'configmaps', namespace: 'a', path: '/api/v1%2Fnamespaces%2Fa%2Fconfigmaps' });
    expect(requestInfo('POST', '/api/v1/namespaces/a/pods/web%2Fproxy/x')).toMatchObject({ resource: 'pods', name: 'web', subresource: 'proxy', subpath: 'x' });
    expect(isQuestion(requestInfo('POST', '/api/v1/namespaces/a%2Fpods%2Fweb%2Fproxy/serviceaccounts/s/token'))).toBe(false);
    expect(requestInfo('POST', '/api/v1/namespaces//pods/web/proxy')).toMatchObject({ namespace: '', resource: 'pods', name: 'web', subresource: 'proxy' });
    expect(requestInfo('GET', '//api/v1/namespaces/a/pods/p/')).toMatchObject({ namespace: 'a', resource: 'pods', name: 'p', verb: 'get' });
    expect(requestInfo('GET', '/api/v1/namespaces/a/configmaps/%E2%9C%93%ff')).toMatchObject({ name: '\u2713\ufffd' });
  });

  it('names each part exactly, and the shortest resource paths', () => {
    expect(requestInfo('GET', '/api/v1/pods')).toEqual({ isResource: true, verb: 'list', group: '', version: 'v1', resource: 'pods', namespace: undefined, name: undefined, subresource: undefined, path: '/api/v1/pods', query: new URLSearchParams() });
    expect(requestInfo('GET', '/apis/apps/v1/deployments')).toMatchObject({ isResource: true, group: 'apps', version: 'v1', resource: 'deployments' });
    expect(requestInfo('GET', '/api/v1/pods')).not.toHaveProperty('subpath');
    expect(requestInfo('GET', '/api/v1/namespaces/a/pods/p/log')).not.toHaveProperty('subpath');
    expect(requestInfo('GET', '/other/v1/pods')).toEqual({ isResource: false, verb: 'other', group: '', version: '', resource: '', path: '/other/v1/pods', query: new URLSearchParams() });
    // /api/v1/watch alone, or /api/v1/namespaces/NAME/watch…: no resource left / a resource named so.
    expect(requestInfo('GET', '/api/v1/watch').isResource).toBe(false);
    expect(requestInfo('GET', '/api/v1/namespaces')).toMatchObject({ isResource: true, resource: 'namespaces', name: undefined, verb: 'list' });
    expect(requestInfo('GET', '/api/v1/watch/namespaces')).toMatchObject({ resource: 'namespaces', verb: 'watch', namespace: undefined });
    expect(requestInfo('GET', '/api/v1/watch/pods')).toMatchObject({ resource: 'pods', verb: 'watch' });
    expect(requestInfo('GET', '/api/v1/namespaces/shop/status')).toMatchObject({ resource: 'namespaces', name: 'shop', subresource: 'status', namespace: undefined });
    expect(requestInfo('GET', '/api/v1/namespaces/shop/events/e1')).toMatchObject({ resource: 'events', name: 'e1', namespace: 'shop' });
  });

  it('takes the verb from the method, the name and the watch parameter', () => {
    const verb = (method: string, target: string) => requestInfo(method, target).verb;
    expect(verb('GET', '/api/v1/namespaces/a/pods/p')).toBe('get');
    expect(verb('HEAD', '/api/v1/namespaces/a/pods/p')).toBe('get');
    expect(verb('HEAD', '/api/v1/pods')).toBe('list');
    expect(verb('GET', '/api/v1/namespaces/a/pods/p?watch=True')).toBe('watch');
    expect(verb('GET', '/api/v1/pods?watch=false')).toBe('list');
    expect(verb('GET', '/api/v1/watch/namespaces/a/pods/p')).toBe('watch');
    expect(verb('POST', '/api/v1/namespaces/a/pods')).toBe('create');
    expect(verb('PUT', '/api/v1/namespaces/a/pods/p')).toBe('update');
    expect(verb('PATCH', '/api/v1/namespaces/a/pods/p')).toBe('patch');
    expect(verb('DELETE', '/api/v1/namespaces/a/pods/p')).toBe('delete');
    expect(verb('DELETE', '/api/v1/namespaces/a/pods')).toBe('deletecollection');
    for (const m of ['OPTIONS', 'CONNECT', 'get', 'TRACE']) expect(verb(m, '/api/v1/namespaces/a/pods/p'), m).toBe('other');
  });

  it('counts every storing verb as a write, and no read', () => {
    const write = (method: string, target: string) => isWrite(requestInfo(method, target));
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(write(m, '/api/v1/namespaces/a/configmaps/c'), m).toBe(true);
    expect(write('DELETE', '/api/v1/namespaces/a/configmaps')).toBe(true);
    expect(write('POST', '/api/v1/namespaces/a/pods/p/eviction')).toBe(true);
    expect(write('POST', '/api/v1/namespaces/a/pods/p/binding')).toBe(true);
    for (const m of ['GET', 'HEAD', 'OPTIONS']) expect(write(m, '/api/v1/namespaces/a/configmaps/c'), m).toBe(false);
    // Not a resource: never a write, whatever the method.
    expect(write('POST', '/apis')).toBe(false);
    expect(write('DELETE', '/healthz')).toBe(false);
  });

  it('is a question only for a create of the review itself or of the token: not a subresource of a review, nor a path past the token', () => {
    expect(isQuestion(requestInfo('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x/status'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/apis/authentication.k8s.io/v1/subjectaccessreviews'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/apis/authorization.k8s.io/v1/tokenreviews'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/api/v1/namespaces/a/serviceaccounts/s/token/extra'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/api/v1/namespaces/a/serviceaccounts/s'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/api/v1/namespaces/a/serviceaccounts'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/api/v1/namespaces/a/serviceaccounts/s/status'))).toBe(false);
    expect(isQuestion(requestInfo('GET', '/api/v1/namespaces/a/serviceaccounts/s/token'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/apis/v1/namespaces/a/serviceaccounts/s/token'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/apis'))).toBe(false);
    expect(isQuestion(requestInfo('POST', '/api/v1/namespaces/a/serviceaccounts/s/token'))).toBe(true);
  });

  it('spells the resource as kubectl does, and the object key', () => {
    expect(resourceName({ group: '', resource: 'pods' })).toBe('pods');
    expect(resourceName({ group: 'apps', resource: 'deployments' })).toBe('deployments.apps');
    expect(objectKey('a', 'p')).toBe('a/p');
    expect(objectKey(undefined, 'n1')).toBe('n1');
    expect(objectKey('', 'n1')).toBe('n1');
  });
});
