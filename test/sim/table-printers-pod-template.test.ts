// The printers of the kinds that run a pod template: the headers kubectl shows (wide ones marked), and cells the
// other printer tests do not pin (ReplicationController, the wide SELECTOR of each kind).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deploymentPrinter, replicaSetPrinter } from '../../src/sim/table/printers/apps.js';
import { jobPrinter } from '../../src/sim/table/printers/job.js';
import { cronJobPrinter, daemonSetPrinter, replicationControllerPrinter, statefulSetPrinter } from '../../src/sim/table/printers/workloads.js';
import type { Printer } from '../../src/sim/table/printer.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const metadata = { name: 'x', creationTimestamp: '2025-01-01T11:00:00Z' };
const template = { spec: { containers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'nginx' }] } };

const PRINTERS: Record<string, Printer> = {
  deployment: deploymentPrinter, replicaSet: replicaSetPrinter, statefulSet: statefulSetPrinter, daemonSet: daemonSetPrinter,
  replicationController: replicationControllerPrinter, job: jobPrinter, cronJob: cronJobPrinter,
};

/** The header as `kubectl get -o wide` lays it out: upper case, wide columns marked with a star. */
const header = (p: Printer): string => p.columns.map((c) => `${c.name.toUpperCase()}${c.priority ? '*' : ''}`).join(' ');

describe('pod-template printers', () => {
  it('print NAME, their own columns, AGE, then the wide CONTAINERS, IMAGES and SELECTOR', () => {
    expect(Object.fromEntries(Object.entries(PRINTERS).map(([k, p]) => [k, header(p)]))).toEqual({
      deployment: 'NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS* IMAGES* SELECTOR*',
      replicaSet: 'NAME DESIRED CURRENT READY AGE CONTAINERS* IMAGES* SELECTOR*',
      statefulSet: 'NAME READY AGE CONTAINERS* IMAGES*',
      daemonSet: 'NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE CONTAINERS* IMAGES* SELECTOR*',
      replicationController: 'NAME DESIRED CURRENT READY AGE CONTAINERS* IMAGES* SELECTOR*',
      job: 'NAME STATUS COMPLETIONS DURATION AGE CONTAINERS* IMAGES* SELECTOR*',
      cronJob: 'NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE CONTAINERS* IMAGES* SELECTOR*',
    });
  });

  it('keep every column definition (types and the descriptions a Table carries) as kube serves them', () => {
    // Pinned from the printers before they shared their layout; a change here changes what clients receive.
    const all = JSON.stringify(Object.values(PRINTERS).map((p) => p.columns));
    expect(createHash('sha256').update(all).digest('hex')).toBe('664e3e770ad8691b06a1b35b6a78c6df84d4ea258666a30e26fc085ec86acf1c');
  });

  it('replication controller: desired defaults to 1, counts from status, the selector as a label map', () => {
    const rc = { metadata, spec: { selector: { app: 'a', tier: 'web' }, template }, status: { replicas: 2, readyReplicas: 1 } };
    expect(replicationControllerPrinter.row(rc, NOW).cells).toEqual(['x', 1, 2, 1, '60m', 'a,b', 'busybox,nginx', 'app=a,tier=web']);
    expect(replicationControllerPrinter.row({ metadata, spec: { replicas: 0 } }, NOW).cells).toEqual(['x', 0, 0, 0, '60m', '', '', '<none>']);
  });

  it('every printer has one cell per column for an object with no spec or status', () => {
    for (const p of Object.values(PRINTERS)) expect(p.row({ metadata }, NOW).cells).toHaveLength(p.columns.length);
  });
});
