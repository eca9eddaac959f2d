// Requests that reach a running workload (exec, attach, portforward, and proxy) are held back by kwatch in the modes
// that promise nothing reaches the cluster: no dry run exists for them. A proxy GET reads and passes; apply lets all by.
import { describe, expect, it } from 'vitest';
import { requestInfo } from '../../src/endpoint/request-info.js';
import { isWorkloadAccess, workloadAccessRefusal } from '../../src/endpoint/workload-access.js';

const at = (method: string, path: string) => requestInfo(method, path);

describe('isWorkloadAccess', () => {
  it('is a named object\'s exec, attach, portforward or proxy, and nothing else', () => {
    for (const sub of ['exec', 'attach', 'portforward', 'proxy']) expect(isWorkloadAccess(at('POST', `/api/v1/namespaces/d/pods/p/${sub}`)), sub).toBe(true);
    expect(isWorkloadAccess(at('GET', '/api/v1/namespaces/d/services/s/proxy'))).toBe(true);
    expect(isWorkloadAccess(at('GET', '/api/v1/nodes/n1/proxy'))).toBe(true);
    for (const path of ['/api/v1/namespaces/d/pods/p/log', '/api/v1/namespaces/d/pods/p/status', '/api/v1/namespaces/d/pods/p', '/api/v1/namespaces/d/pods', '/version', '/api/v1/namespaces/d/pods/p/eviction']) {
      expect(isWorkloadAccess(at('POST', path)), path).toBe(false);
    }
  });
});

describe('workloadAccessRefusal', () => {
  it('refuses every exec, attach and portforward, and a proxy request but GET, in intercept, server-dry-run and overlay', () => {
    for (const mode of ['intercept', 'server-dry-run', 'overlay']) {
      const exec = workloadAccessRefusal(at('GET', '/api/v1/namespaces/d/pods/p/exec?command=ls'), 'GET', mode)!;
      expect(exec.status).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden',
        message: `kwatch endpoint: pods/exec is refused under --writes ${mode}: it acts on the running workload itself, which no dry run holds back (--writes apply lets it through)`,
        details: { name: 'p', kind: 'pods' },
      });
      expect(workloadAccessRefusal(at('POST', '/api/v1/namespaces/d/pods/p/portforward'), 'POST', mode)?.status.message).toContain('pods/portforward is refused');
      expect(workloadAccessRefusal(at('POST', '/api/v1/namespaces/d/services/s/proxy/x'), 'POST', mode)?.status.message).toMatch(/^kwatch endpoint: a POST through services\/proxy is refused under --writes /);
      expect(workloadAccessRefusal(at('GET', '/api/v1/namespaces/d/services/s/proxy/x'), 'GET', mode)).toBeUndefined();
      expect(workloadAccessRefusal(at('GET', '/api/v1/namespaces/d/pods/p/log'), 'GET', mode)).toBeUndefined();
      expect(workloadAccessRefusal(at('DELETE', '/api/v1/namespaces/d/pods/p'), 'DELETE', mode)).toBeUndefined();
    }
  });

  it('names the group of a grouped kind, and lets everything through under apply', () => {
    const grouped = workloadAccessRefusal(at('POST', '/apis/example.com/v1/namespaces/d/widgets/w/proxy'), 'POST', 'intercept')!;
    expect(grouped.status.details).toEqual({ name: 'w', kind: 'widgets', group: 'example.com' });
    expect(workloadAccessRefusal(at('POST', '/api/v1/namespaces/d/pods/p/exec'), 'POST', 'apply')).toBeUndefined();
    expect(workloadAccessRefusal(at('PUT', '/api/v1/namespaces/d/services/s/proxy'), 'PUT', 'apply')).toBeUndefined();
  });
});
