import { describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { parseFieldSelector } from '../../src/sim/field-selector.js';
import { SelectorError } from '../../src/sim/selector-error.js';

const pod = (extra: Record<string, unknown> = {}): SimObject => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'shop' },
  spec: { nodeName: 'node-001', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'default' },
  status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }, { ip: 'fd00::9' }] },
  ...extra,
});

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorError);
    return (e as Error).message;
  }
  throw new Error('expected a SelectorError');
};

describe('field selectors on pods', () => {
  const matches: [string, boolean][] = [
    ['', true],
    ['spec.nodeName=node-001', true],
    ['spec.nodeName==node-001', true],
    ['spec.nodeName!=node-001', false],
    ['spec.host=node-001', true],
    ['status.phase=Running,metadata.namespace=shop', true],
    ['status.phase=Running,metadata.namespace=other', false],
    ['status.podIP=10.0.0.9', true],
    ['spec.hostNetwork=false', true],
    ['spec.restartPolicy=Always,spec.schedulerName=default-scheduler,spec.serviceAccountName=default', true],
    ['status.nominatedNodeName=', true],
    ['metadata.name=web-1', true],
  ];
  it.each(matches)('%j matches: %s', (selector, expected) => {
    expect(parseFieldSelector(selector, 'Pod', '').matches(pod())).toBe(expected);
  });

  it('rewrites spec.host to spec.nodeName and normalises == to =', () => {
    expect(parseFieldSelector('spec.host==n1', 'Pod', '').requirements).toEqual([{ field: 'spec.nodeName', op: '=', value: 'n1' }]);
  });

  it('finds unscheduled pods with an empty spec.nodeName', () => {
    const pending = pod({ spec: {}, status: { phase: 'Pending' } });
    expect(parseFieldSelector('spec.nodeName=', 'Pod', '').matches(pending)).toBe(true);
    expect(parseFieldSelector('spec.nodeName!=', 'Pod', '').matches(pending)).toBe(false);
  });

  it('reads spec.hostNetwork as "true"/"false" and status.podIP from podIPs first', () => {
    const hostPod = pod({ spec: { hostNetwork: true }, status: { podIP: '1.1.1.1', podIPs: [{ ip: '2.2.2.2' }] } });
    expect(parseFieldSelector('spec.hostNetwork=true,status.podIP=2.2.2.2', 'Pod', '').matches(hostPod)).toBe(true);
  });

  it('unescapes \\, \\= and \\\\ in values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b\\=c\\\\', 'Pod', '').requirements[0].value).toBe('a,b=c\\');
  });

  it('rejects unknown pod fields with "field label not supported"', () => {
    expect(messageOf(() => parseFieldSelector('spec.containers=x', 'Pod', ''))).toBe('field label not supported: spec.containers');
    expect(messageOf(() => parseFieldSelector('status.podIPs=x', 'Pod', ''))).toBe('field label not supported: status.podIPs');
  });

  it('does not trim whitespace around the field label, like kube', () => {
    expect(messageOf(() => parseFieldSelector('spec.nodeName =x', 'Pod', ''))).toBe('field label not supported: spec.nodeName ');
  });
});

describe('field selector syntax errors', () => {
  it.each([
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['metadata.name=x,b', "invalid selector: 'metadata.name=x,b'; can't understand 'b'"],
    ['metadata.name=a=b', 'invalid field selector: unescaped character in value: 61'],
    ['metadata.name=a\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['metadata.name=a\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('rejects %j', (selector, message) => {
    expect(messageOf(() => parseFieldSelector(selector, 'Pod', ''))).toBe(message);
  });
});

describe('field selectors per kind', () => {
  it('nodes: metadata.name and spec.unschedulable only', () => {
    const node: SimObject = { metadata: { name: 'node-001' }, spec: { unschedulable: true } };
    expect(parseFieldSelector('spec.unschedulable=true', 'Node', '').matches(node)).toBe(true);
    expect(parseFieldSelector('spec.unschedulable=false', 'Node', '').matches({ metadata: { name: 'n' } })).toBe(true);
    expect(messageOf(() => parseFieldSelector('metadata.namespace=x', 'Node', ''))).toBe('field label not supported: metadata.namespace');
  });

  it('namespaces: status.phase', () => {
    expect(parseFieldSelector('status.phase=Active', 'Namespace', '').matches({ metadata: { name: 'a' }, status: { phase: 'Active' } })).toBe(true);
  });

  it('secrets: type', () => {
    expect(parseFieldSelector('type=kubernetes.io/tls', 'Secret', '').matches({ metadata: { name: 's', namespace: 'x' }, type: 'kubernetes.io/tls' })).toBe(true);
  });

  it('services: spec.clusterIP and spec.type', () => {
    const svc: SimObject = { metadata: { name: 's', namespace: 'x' }, spec: { clusterIP: '10.96.0.1', type: 'ClusterIP' } };
    expect(parseFieldSelector('spec.clusterIP=10.96.0.1,spec.type=ClusterIP', 'Service', '').matches(svc)).toBe(true);
  });

  it('events: involvedObject fields, reason, type and source (falling back to reportingComponent)', () => {
    const ev: SimObject = {
      metadata: { name: 'e', namespace: 'x' }, involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'x', uid: 'u1' },
      reason: 'Started', type: 'Normal', reportingComponent: 'kubelet',
    };
    expect(parseFieldSelector('involvedObject.kind=Pod,involvedObject.name=web-1,reason=Started,type=Normal,source=kubelet', 'Event', '').matches(ev)).toBe(true);
  });

  it('other kinds accept only metadata.name and metadata.namespace, with the default converter message', () => {
    const cm: SimObject = { metadata: { name: 'c', namespace: 'x' } };
    expect(parseFieldSelector('metadata.namespace=x', 'ConfigMap', '').matches(cm)).toBe(true);
    expect(messageOf(() => parseFieldSelector('data.x=1', 'ConfigMap', ''))).toBe('"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
    expect(messageOf(() => parseFieldSelector('status.replicas=1', 'ReplicaSet', 'apps'))).toBe('"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('custom resources named like core kinds get the default converter', () => {
    expect(messageOf(() => parseFieldSelector('spec.nodeName=x', 'Pod', 'example.com'))).toBe('"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('matches metadata.namespace= on cluster-scoped objects', () => {
    expect(parseFieldSelector('metadata.namespace=', 'Widget', 'example.com').matches({ metadata: { name: 'w' } })).toBe(true);
  });
});
