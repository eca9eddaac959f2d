// Cells of the printers of the further kinds (src/sim/table/printers/{workloads,rbac,network,storage,policy}.ts),
// formatted as kube 1.32's pkg/printers/internalversion formats them.
import { describe, expect, it } from 'vitest';
import { endpointSlicePrinter, endpointsPrinter, ingressPrinter } from '../../src/sim/table/printers/network.js';
import { podDisruptionBudgetPrinter, resourceQuotaPrinter } from '../../src/sim/table/printers/policy.js';
import { roleBindingPrinter } from '../../src/sim/table/printers/rbac.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from '../../src/sim/table/printers/storage.js';
import { cronJobPrinter, daemonSetPrinter, statefulSetPrinter } from '../../src/sim/table/printers/workloads.js';
import { printerFor } from '../../src/sim/table/printers/index.js';
import { defaultPrinter } from '../../src/sim/table/printers/default.js';
import { SimStore } from '../../src/sim/store.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const metadata = { name: 'x', creationTimestamp: '2025-01-01T11:00:00Z' };

describe('printers of the further kinds', () => {
  it('endpoints: ip:port per address and port, the first three then "+ N more...", <none> without subsets', () => {
    const addresses = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((ip) => ({ ip }));
    expect(endpointsPrinter.row({ metadata, subsets: [{ addresses, ports: [{ port: 80 }] }] }, NOW).cells).toEqual(['x', '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...', '60m']);
    expect(endpointsPrinter.row({ metadata }, NOW).cells[1]).toBe('<none>');
    expect(endpointsPrinter.row({ metadata, subsets: [{ addresses: [{ ip: '10.0.0.9' }] }] }, NOW).cells[1]).toBe('10.0.0.9');
    expect(endpointSlicePrinter.row({ metadata, addressType: 'IPv4', ports: [{ port: 80 }, { port: 443 }], endpoints: [] }, NOW).cells).toEqual(['x', 'IPv4', '80,443', '<unset>', '60m']);
  });

  it('claims and volumes: capacity and modes once bound, <unset> classes, Terminating while deleted', () => {
    const pvc = { metadata, spec: { volumeName: 'pv-1', storageClassName: 'fast', volumeMode: 'Filesystem' }, status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'] } };
    expect(persistentVolumeClaimPrinter.row(pvc, NOW).cells).toEqual(['x', 'Bound', 'pv-1', '1Gi', 'RWO,RWX', 'fast', '<unset>', '60m', 'Filesystem']);
    expect(persistentVolumeClaimPrinter.row({ metadata: { ...metadata, deletionTimestamp: metadata.creationTimestamp }, spec: {}, status: { phase: 'Pending' } }, NOW).cells.slice(1, 7)).toEqual(['Terminating', '', '', '', '<unset>', '<unset>']);
    const pv = { metadata, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'ns', name: 'data' } }, status: { phase: 'Bound' } };
    expect(persistentVolumePrinter.row(pv, NOW).cells).toEqual(['x', '5Gi', 'RWO', 'Retain', 'Bound', 'ns/data', '', '<unset>', '', '60m', '<unset>']);
  });

  it('quota: used/hard per resource of status.hard, limits.* in the LIMIT column', () => {
    const q = { metadata, spec: { hard: { pods: '10' } }, status: { hard: { pods: '10', 'limits.cpu': '4', 'requests.cpu': '2' }, used: { pods: '3', 'limits.cpu': '500m' } } };
    expect(resourceQuotaPrinter.row(q, NOW).cells).toEqual(['x', '60m', 'pods: 3/10, requests.cpu: 0/2', 'limits.cpu: 500m/4']);
    expect(podDisruptionBudgetPrinter.row({ metadata, spec: { maxUnavailable: '25%' }, status: { disruptionsAllowed: 1 } }, NOW).cells).toEqual(['x', 'N/A', '25%', 1, '60m']);
  });

  it('workloads: statefulset ready/desired, daemonset counts and node selector, cronjob schedule and last run', () => {
    const template = { spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'a', image: 'busybox' }] } };
    expect(statefulSetPrinter.row({ metadata, spec: { replicas: 3, template }, status: { readyReplicas: 2 } }, NOW).cells).toEqual(['x', '2/3', '60m', 'a', 'busybox']);
    expect(daemonSetPrinter.row({ metadata, spec: { selector: { matchLabels: { app: 'a' } }, template }, status: { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1 } }, NOW).cells)
      .toEqual(['x', 2, 2, 1, 0, 0, 'disk=ssd', '60m', 'a', 'busybox', 'app=a']);
    const cj = { metadata, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template } } }, status: { lastScheduleTime: '2025-01-01T11:55:00Z', active: [{}] } };
    expect(cronJobPrinter.row(cj, NOW).cells).toEqual(['x', '*/5 * * * *', '<none>', '<unset>', 1, '5m', '60m', 'a', 'busybox', '<none>']);
  });

  it('bindings and ingresses', () => {
    const rb = { metadata, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'a' }, { kind: 'User', name: 'b' }, { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' }] };
    expect(roleBindingPrinter.row(rb, NOW).cells).toEqual(['x', 'ClusterRole/view', '60m', 'a, b', '', 'ns:sa']);
    const ing = { metadata, spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example' }, {}], tls: [{}] }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } };
    expect(ingressPrinter.row(ing, NOW).cells).toEqual(['x', 'nginx', 'a.example,*', '1.2.3.4', '80, 443', '60m']);
  });

  it('roles, cluster roles and limit ranges use kube\'s default columns (NAME, CREATED AT)', () => {
    const store = new SimStore();
    for (const resource of ['roles', 'clusterroles']) expect(printerFor(store, store.resolve({ group: 'rbac.authorization.k8s.io', version: 'v1', resource }))).toBe(defaultPrinter);
    expect(printerFor(store, store.resolve({ group: '', version: 'v1', resource: 'limitranges' }))).toBe(defaultPrinter);
  });
});
