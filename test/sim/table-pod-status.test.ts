// The READY / STATUS / RESTARTS cells follow kube 1.32's printPod.
import { describe, expect, it } from 'vitest';
import { podPrinter, podSummary } from '../../src/sim/table/printers/pod.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString().replace(/\.\d+Z$/, 'Z');
const MIN = 60_000;

function pod(status: Record<string, unknown>, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  return { metadata: { name: 'p', creationTimestamp: ago(5 * MIN), ...metadata }, spec: { containers: [{ name: 'a' }], ...spec }, status };
}
const running = (name: string, extra: Record<string, unknown> = {}) => ({ name, ready: true, started: true, restartCount: 0, state: { running: { startedAt: ago(MIN) } }, ...extra });

describe('pod status cells', () => {
  it('a pod without container statuses shows its phase', () => {
    expect(podSummary(pod({ phase: 'Pending' }), NOW)).toEqual({ ready: '0/1', status: 'Pending', restarts: '0' });
  });

  it('a waiting container shows its reason (ContainerCreating, CrashLoopBackOff)', () => {
    const p = pod({ phase: 'Pending', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] });
    expect(podSummary(p, NOW).status).toBe('ContainerCreating');
  });

  it('a running ready container counts as ready', () => {
    expect(podSummary(pod({ phase: 'Running', containerStatuses: [running('a')] }), NOW)).toEqual({ ready: '1/1', status: 'Running', restarts: '0' });
  });

  it('restarts show when the last container terminated, as kube 1.32 prints them', () => {
    const p = pod({ phase: 'Running', containerStatuses: [running('a', { restartCount: 3, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: ago(15 * MIN + 20_000) } } })] });
    expect(podSummary(p, NOW).restarts).toBe('3 (15m ago)');
  });

  it('restarts without a known termination time print as a bare count', () => {
    const p = pod({ phase: 'Running', containerStatuses: [running('a', { restartCount: 2 })] });
    expect(podSummary(p, NOW).restarts).toBe('2');
  });

  it('a completed pod shows Completed and carries the Completed row condition', () => {
    const p = pod({ phase: 'Succeeded', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] });
    expect(podSummary(p, NOW)).toEqual({ ready: '0/1', status: 'Completed', restarts: '0' });
    expect(podPrinter.row(p, NOW).conditions).toEqual([{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  });

  it('a terminated container without a reason shows its exit code or signal', () => {
    const exit = pod({ phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 2 } } }] });
    expect(podSummary(exit, NOW).status).toBe('ExitCode:2');
    const sig = pod({ phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 137, signal: 9 } } }] });
    expect(podSummary(sig, NOW).status).toBe('Signal:9');
    expect(podPrinter.row(exit, NOW).conditions?.[0].reason).toBe('Failed');
  });

  it('one container completed while another runs: Running when the pod is Ready, else NotReady', () => {
    const statuses = [running('a'), { name: 'b', state: { terminated: { exitCode: 0, reason: 'Completed' } } }];
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    expect(podSummary(pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: statuses }, spec), NOW).status).toBe('Running');
    expect(podSummary(pod({ phase: 'Running', containerStatuses: statuses }, spec), NOW).status).toBe('NotReady');
  });

  it('a pod being deleted shows Terminating, or Unknown when its node is lost', () => {
    const p = pod({ phase: 'Running', containerStatuses: [running('a')] }, {}, { deletionTimestamp: ago(0) });
    expect(podSummary(p, NOW).status).toBe('Terminating');
    const lost = pod({ phase: 'Running', reason: 'NodeLost', containerStatuses: [running('a')] }, {}, { deletionTimestamp: ago(0) });
    expect(podSummary(lost, NOW).status).toBe('Unknown');
    const done = pod({ phase: 'Succeeded' }, {}, { deletionTimestamp: ago(0) });
    expect(podSummary(done, NOW).status).toBe('Succeeded');
  });

  it('init containers: progress, waiting reasons and failures show as Init:…', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }] };
    const progress = pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 0 } } }, { name: 'i2', state: { running: {} } }] }, spec);
    expect(podSummary(progress, NOW).status).toBe('Init:1/2');
    const crash = pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }, spec);
    expect(podSummary(crash, NOW)).toEqual({ ready: '0/1', status: 'Init:CrashLoopBackOff', restarts: '4' });
    const failed = pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } }] }, spec);
    expect(podSummary(failed, NOW).status).toBe('Init:Error');
    const code = pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 3 } } }] }, spec);
    expect(podSummary(code, NOW).status).toBe('Init:ExitCode:3');
  });

  it('a started sidecar counts as a pod container and its restarts stay counted after initialization', () => {
    const spec = { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] };
    const p = pod({
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: ago(3 * MIN) } } }],
      containerStatuses: [running('a')],
    }, spec);
    expect(podSummary(p, NOW)).toEqual({ ready: '2/2', status: 'Running', restarts: '1 (3m ago)' });
  });

  it('a scheduling-gated pod says SchedulingGated', () => {
    const p = pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] });
    expect(podSummary(p, NOW).status).toBe('SchedulingGated');
  });

  it('wide cells: first pod IP, node, nominated node and satisfied readiness gates', () => {
    const p = pod(
      { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }], conditions: [{ type: 'example.com/lb', status: 'True' }], containerStatuses: [running('a')] },
      { nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/other' }] },
    );
    expect(podPrinter.row(p, NOW).cells).toEqual(['p', '1/1', 'Running', '0', '5m', '10.0.0.5', 'n1', '<none>', '1/2']);
    expect(podPrinter.row(pod({ phase: 'Pending' }), NOW).cells.slice(5)).toEqual(['<none>', '<none>', '<none>', '<none>']);
  });

  it('an almost empty object (a BOOKMARK) still prints', () => {
    expect(podPrinter.row({ metadata: { resourceVersion: '5', creationTimestamp: null }, spec: { containers: null }, status: {} }, NOW).cells)
      .toEqual(['', '0/0', '', '0', '<unknown>', '<none>', '<none>', '<none>', '<none>']);
  });
});
