import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/informer/types.js';
import { kubectlJSON, printObjects, resourcePrefix, type PrintObjectsOptions } from '../../src/render/objects.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const pod = (name: string, ns: string, created: string): KubeObject => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { namespace: ns, name, creationTimestamp: created },
  spec: { nodeName: 'node-1' },
});
const deploy: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: 'default' } };
const PODS = [pod('nginx-1', 'default', '2026-11-25T11:55:00Z'), pod('coredns', 'kube-system', '2026-11-20T12:00:00Z')];

function print(objects: KubeObject[], opts: Omit<PrintObjectsOptions, 'stream'>): string {
  let out = '';
  printObjects(objects, { now: () => NOW, ...opts, stream: { write: (s: string) => (out += s) } });
  return out;
}

describe('printObjects', () => {
  it('-o json prints a kubectl List with sorted keys and 4-space indent', () => {
    const out = print(PODS, { output: 'json' });
    expect(out.startsWith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n            "apiVersion": "v1",\n            "kind": "Pod",')).toBe(true);
    expect(out.endsWith('    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')).toBe(true);
    expect(JSON.parse(out).items).toHaveLength(2);
  });

  it('-o json prints a single object bare when asked, escaping HTML characters like Go', () => {
    const out = print([{ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { x: '<b>&' } }], { output: 'json', single: true });
    expect(out).toContain('"x": "\\u003cb\\u003e\\u0026"');
    expect(JSON.parse(out).kind).toBe('ConfigMap');
    expect(kubectlJSON({ b: 1, a: 2 })).toBe('{\n    "a": 2,\n    "b": 1\n}');
  });

  it('-o yaml prints kubectl-style YAML that parses back to the List', () => {
    const out = print(PODS, { output: 'yaml' });
    expect(out.startsWith('apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n')).toBe(true);
    expect(out).toContain('metadata:\n  resourceVersion: ""\n');
    expect(parse(out).items[1].metadata.name).toBe('coredns');
  });

  it('-o name prints kind/name, with the API group for non-core kinds', () => {
    expect(print([...PODS, deploy], { output: 'name' })).toBe('pod/nginx-1\npod/coredns\ndeployment.apps/nginx\n');
    expect(resourcePrefix({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: {} })).toBe('crontab.stable.example.com');
  });

  it('-o ndjson prints one object per line', () => {
    expect(print(PODS, { output: 'ndjson' }).trimEnd().split('\n').map((l) => JSON.parse(l).metadata.name)).toEqual(['nginx-1', 'coredns']);
  });

  it('-o table prints NAME and AGE, with NAMESPACE first under -A', () => {
    expect(print(PODS, { output: 'table' })).toBe('NAME      AGE\nnginx-1   5m\ncoredns   5d\n');
    expect(print(PODS, { output: 'table', allNamespaces: true })).toBe(
      'NAMESPACE     NAME      AGE\ndefault       nginx-1   5m\nkube-system   coredns   5d\n',
    );
  });

  it('prints nothing for no objects in a table and returns the count', () => {
    let out = '';
    expect(printObjects([], { output: 'table', stream: { write: (s: string) => (out += s) } })).toBe(0);
    expect(out).toBe('');
  });
});
