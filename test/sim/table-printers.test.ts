// Cells of the non-pod printers, the CRD-column printer with its JSONPath subset, and Accept negotiation.
import { describe, expect, it } from 'vitest';
import { negotiateTable, parseIncludeObject } from '../../src/sim/table/negotiate.js';
import { evaluateJsonPath, parseJsonPath } from '../../src/sim/table/jsonpath-lite.js';
import { customResourcePrinter } from '../../src/sim/table/printers/custom-resource.js';
import { nodePrinter } from '../../src/sim/table/printers/node.js';
import { servicePrinter } from '../../src/sim/table/printers/service.js';
import { eventPrinter } from '../../src/sim/table/printers/event.js';
import { deploymentPrinter, replicaSetPrinter } from '../../src/sim/table/printers/apps.js';
import { defaultPrinter } from '../../src/sim/table/printers/default.js';
import { jobPrinter } from '../../src/sim/table/printers/job.js';
import { formatLabelSelector } from '../../src/sim/table/labels.js';
import { goJson } from '../../src/sim/table/go-json.js';
import { printerFor } from '../../src/sim/table/printers/index.js';
import { builtinResourceTypes } from '../../src/sim/registry.js';
import { SimStore } from '../../src/sim/store.js';
import { bookmarkObject } from '../../src/sim/watch-handler.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const created = '2025-01-01T11:00:00Z';
const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('node cells', () => {
  it('status from the Ready condition, cordon, roles from labels, addresses and node info', () => {
    const node = {
      metadata: { name: 'n1', creationTimestamp: created, labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'infra' } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'False' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], nodeInfo: { kubeletVersion: 'v1.32.0' } },
    };
    expect(nodePrinter.row(node, NOW).cells).toEqual(['n1', 'NotReady,SchedulingDisabled', 'control-plane,infra', '60m', 'v1.32.0', '10.0.0.1', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    expect(nodePrinter.row({ metadata: { name: 'n2' } }, NOW).cells.slice(1, 3)).toEqual(['Unknown', '<none>']);
  });
});

describe('job cells', () => {
  it('status from the first True condition, completions with and without spec.completions, duration', () => {
    const tmpl = { spec: { containers: [{ name: 'pi', image: 'busybox' }] } };
    const done = {
      metadata: { name: 'pi', creationTimestamp: created }, spec: { completions: 2, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u' } }, template: tmpl },
      status: { conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }], startTime: '2025-01-01T11:00:00Z', completionTime: '2025-01-01T11:00:07Z', succeeded: 2 },
    };
    expect(jobPrinter.row(done, NOW).cells).toEqual(['pi', 'Complete', '2/2', '7s', '60m', 'pi', 'busybox', 'batch.kubernetes.io/controller-uid=u']);
    const running = { metadata: { name: 'w', creationTimestamp: created }, spec: { parallelism: 3 }, status: { startTime: '2025-01-01T11:59:30Z' } };
    expect(jobPrinter.row(running, NOW).cells.slice(0, 4)).toEqual(['w', 'Running', '0/1 of 3', '30s']);
    expect(jobPrinter.row({ metadata: { name: 'n', deletionTimestamp: created }, spec: {} }, NOW).cells.slice(0, 4)).toEqual(['n', 'Terminating', '0/1', '']);
  });
});

describe('service cells', () => {
  it('cluster IP, external IP by type, ports with node ports, selector', () => {
    const svc = { metadata: { name: 's', creationTimestamp: created }, spec: { type: 'NodePort', clusterIPs: ['10.96.0.9'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { b: '2', a: '1' } } };
    expect(servicePrinter.row(svc, NOW).cells).toEqual(['s', 'NodePort', '10.96.0.9', '<none>', '80:30080/TCP,53/UDP', '60m', 'a=1,b=2']);
    const lb = { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer' }, status: { loadBalancer: {} } };
    expect(servicePrinter.row(lb, NOW).cells.slice(2, 5)).toEqual(['<none>', '<pending>', '<none>']);
  });
});

describe('event cells', () => {
  it('core/v1: last seen, object as kind/name, source with host, trimmed message, count', () => {
    const e = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, type: 'Warning', reason: 'BackOff', message: ' Back-off restarting \n',
      involvedObject: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{a}' }, source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: '2025-01-01T10:00:00Z', lastTimestamp: '2025-01-01T11:58:00Z', count: 7,
    };
    expect(eventPrinter.row(e, NOW).cells).toEqual(['2m', 'Warning', 'BackOff', 'pod/p', 'spec.containers{a}', 'kubelet, n1', 'Back-off restarting', '120m', 7, 'e1']);
  });

  it('events.k8s.io/v1: regarding, note, reporting controller; a series sets last seen and count', () => {
    const e = {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e2' }, type: 'Normal', reason: 'Sync', note: 'ok',
      regarding: { kind: 'Deployment', name: 'd' }, reportingController: 'ctrl', eventTime: '2025-01-01T11:00:00.000000Z',
      series: { count: 4, lastObservedTime: '2025-01-01T11:59:00.000000Z' },
    };
    expect(eventPrinter.row(e, NOW).cells).toEqual(['60s', 'Normal', 'Sync', 'deployment/d', '', 'ctrl', 'ok', '60m', 4, 'e2']);
  });
});

describe('deployment and replica set cells', () => {
  const template = { spec: { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'log', image: 'busybox' }] } };
  it('deployment READY is ready/desired; the selector string is printed as is', () => {
    const d = { metadata: { name: 'd', creationTimestamp: created }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }, template }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } };
    expect(deploymentPrinter.row(d, NOW).cells).toEqual(['d', '2/3', 3, 2, '60m', 'web,log', 'nginx:1,busybox', 'app=web,tier in (a,b)']);
  });

  it('replica set counts are integers; an empty selector prints <none>', () => {
    const rs = { metadata: { name: 'rs', creationTimestamp: created }, spec: { replicas: 2, selector: {}, template }, status: { replicas: 2 } };
    expect(replicaSetPrinter.row(rs, NOW).cells).toEqual(['rs', 2, 2, 0, '60m', 'web,log', 'nginx:1,busybox', '<none>']);
    expect(formatLabelSelector({ matchExpressions: [{ key: 'x', operator: 'Bogus' }] })).toBe('<error>');
  });
});

describe('default printer (CRDs)', () => {
  it('prints NAME and CREATED AT as an RFC 3339 time', () => {
    expect(defaultPrinter.columns.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(defaultPrinter.row({ metadata: { name: 'widgets.example.com', creationTimestamp: created } }, NOW).cells).toEqual(['widgets.example.com', '2025-01-01T11:00:00Z']);
  });
});

describe('custom resource columns', () => {
  const obj = {
    metadata: { name: 'g1', creationTimestamp: created, labels: { 'app.kubernetes.io/name': 'x' } },
    spec: { size: 3.9, on: true, tags: ['b', 'a'], nested: { z: 1, a: '<&>' } },
    status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
  };

  it('evaluates the simple JSONPaths CRDs use', () => {
    const at = (p: string) => evaluateJsonPath(parseJsonPath(p), obj);
    expect(at('.spec.size')).toEqual([3.9]);
    expect(at('{.spec.tags[1]}')).toEqual(['a']);
    expect(at('.spec.tags[-1]')).toEqual(['a']);
    expect(at('.spec.tags[*]')).toEqual(['b', 'a']);
    expect(at(".metadata.labels['app.kubernetes.io/name']")).toEqual(['x']);
    expect(at('.status.conditions[?(@.type=="Ready")].status')).toEqual(['True']);
    expect(at(".status.conditions[?(@.type!='Ready')].type")).toEqual(['Synced']);
    expect(at('.spec.missing.deeper')).toEqual([]);
    expect(() => parseJsonPath('.spec..size')).toThrow();
  });

  it('types cells like apiextensions: integer truncates, string prints JSON for objects, date is an age, mismatches are empty', () => {
    const p = customResourcePrinter([
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
      { name: 'Nested', type: 'string', jsonPath: '.spec.nested', priority: 1 },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Wrong', type: 'integer', jsonPath: '.spec.tags' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nope' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
    expect(p.columns.map((c) => [c.name, c.type, c.priority])).toEqual([['Name', 'string', 0], ['Size', 'integer', 0], ['On', 'boolean', 0], ['Nested', 'string', 1], ['Ready', 'string', 0], ['Wrong', 'integer', 0], ['Missing', 'string', 0], ['Age', 'date', 0]]);
    expect(p.columns[1].description).toBe('Custom resource definition column (in JSONPath format): .spec.size');
    const cells = p.row(obj, NOW).cells;
    expect(cells).toEqual(['g1', 3, true, '{"a":"\\u003c\\u0026\\u003e","z":1}', 'True', null, null, '60m']);
  });

  it('without additionalPrinterColumns a custom resource prints NAME and AGE', () => {
    const p = customResourcePrinter(undefined);
    expect(p.columns.map((c) => [c.name, c.type])).toEqual([['Name', 'string'], ['Age', 'date']]);
    expect(p.row(obj, NOW).cells).toEqual(['g1', '60m']);
  });
});

describe('every built-in printer', () => {
  it('prints one cell per column for a BOOKMARK object and for fields of unexpected shapes', () => {
    const store = new SimStore();
    for (const type of builtinResourceTypes()) {
      const p = printerFor(store, type);
      const bookmark = JSON.parse(JSON.stringify(bookmarkObject(type, 7)));
      expect(p.row(bookmark, NOW).cells, type.resource).toHaveLength(p.columns.length);
      const odd = { metadata: { name: 'x' }, spec: { containers: 'no', initContainers: [null], ports: {}, selector: 5, template: { spec: { containers: {} } } }, status: { conditions: {}, containerStatuses: [null], addresses: 3 } };
      expect(p.row(odd, NOW).cells, type.resource).toHaveLength(p.columns.length);
    }
  });
});

describe('Table negotiation', () => {
  it("kubectl's Accept list asks for a meta.k8s.io/v1 Table; a v1beta1-only list for v1beta1", () => {
    expect(negotiateTable(KUBECTL_ACCEPT)).toBe('v1');
    expect(negotiateTable('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe('v1beta1');
  });

  it('plain JSON, protobuf-first, PartialObjectMetadata and absent Accept headers keep the JSON answer', () => {
    expect(negotiateTable('application/json')).toBeUndefined();
    expect(negotiateTable(undefined)).toBeUndefined();
    expect(negotiateTable('application/vnd.kubernetes.protobuf,application/json')).toBeUndefined();
    expect(negotiateTable('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json')).toBeUndefined();
    expect(negotiateTable('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json')).toBeUndefined();
  });

  it('clauses are taken by q value, and transforms kube has no Table for are skipped', () => {
    expect(negotiateTable('application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io')).toBe('v1');
    expect(negotiateTable('application/json;as=Table;v=v2;g=meta.k8s.io,application/json')).toBeUndefined();
  });

  it('a refused Table with nothing else acceptable is 406 NotAcceptable (watch-list requests)', () => {
    expect(negotiateTable(KUBECTL_ACCEPT, false)).toBeUndefined();
    expect(() => negotiateTable('application/json;as=Table;v=v1;g=meta.k8s.io', false)).toThrow(/only the following media types are accepted/);
  });

  it('includeObject defaults to Metadata and rejects unknown values with 400', () => {
    expect(parseIncludeObject(new URLSearchParams())).toBe('Metadata');
    expect(parseIncludeObject(new URLSearchParams('includeObject=Object'))).toBe('Object');
    expect(() => parseIncludeObject(new URLSearchParams('includeObject=All'))).toThrow(`Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`);
  });

  it('JSON is escaped like Go: <none> goes out as \\u003cnone\\u003e', () => {
    expect(goJson(['<none>', 'a&b'])).toBe('["\\u003cnone\\u003e","a\\u0026b"]');
  });
});
