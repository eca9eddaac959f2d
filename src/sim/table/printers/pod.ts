// Pods: NAME READY STATUS RESTARTS AGE (+ wide IP NODE NOMINATED NODE READINESS GATES) with kube 1.32's printPod rules.
import { parseTimestamp, translateTimestampSince, humanDuration } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN, wide } from '../columns.js';
import { POD } from '../descriptions.js';
import { list, str, type PrintableObject, type Printer, type PrintedRow, type RowCondition } from '../printer.js';

const COLUMNS = [
  NAME_COLUMN,
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  AGE_COLUMN,
  wide(column('IP', 'string', POD.podIP)),
  wide(column('Node', 'string', POD.nodeName)),
  wide(column('Nominated Node', 'string', POD.nominatedNodeName)),
  wide(column('Readiness Gates', 'string', POD.readinessGates)),
];

const SUCCEEDED: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const FAILED: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

interface ContainerState {
  waiting?: { reason?: string };
  running?: object;
  terminated?: { reason?: string; exitCode?: number; signal?: number; finishedAt?: string };
}
interface ContainerStatus { name?: string; ready?: boolean; started?: boolean; restartCount?: number; state?: ContainerState; lastState?: ContainerState }

/** The READY, STATUS and RESTARTS cells of a pod (the part of printPod with rules worth testing on their own). */
export interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

export function podSummary(pod: PrintableObject, now: number): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  // A pod held back by scheduling gates says so.
  for (const c of list(status.conditions)) {
    if (c?.type === 'PodScheduled' && c?.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const initSpecs: Record<string, { restartPolicy?: string }> = {};
  let total = list(spec.containers).length;
  for (const c of list(spec.initContainers)) {
    initSpecs[c?.name] = c ?? {};
    // Sidecars (restartable init containers) count as containers of the pod.
    if (c?.restartPolicy === 'Always') total++;
  }
  const isSidecar = (name: string | undefined) => initSpecs[name ?? '']?.restartPolicy === 'Always';

  let restarts = 0;
  let sidecarRestarts = 0;
  let ready = 0;
  /** Latest container termination (ms), undefined while none is known (Go's zero time). */
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined) => (b !== undefined && (a === undefined || a < b) ? b : a);

  let initializing = false;
  const initStatuses: ContainerStatus[] = list(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i] ?? {};
    const finished = parseTimestamp(c.lastState?.terminated?.finishedAt);
    restarts += c.restartCount ?? 0;
    if (c.lastState?.terminated) lastRestart = later(lastRestart, finished);
    if (isSidecar(c.name)) {
      sidecarRestarts += c.restartCount ?? 0;
      if (c.lastState?.terminated) lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const term = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (isSidecar(c.name) && c.started === true) {
      if (c.ready) ready++;
      continue;
    }
    if (term) {
      if (!term.reason) reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode ?? 0}`;
      else reason = `Init:${term.reason}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${list(spec.initContainers).length}`;
    }
    initializing = true;
    break;
  }

  const initialized = list(status.conditions).find((c: { type?: string }) => c?.type === 'Initialized')?.status === 'True';
  if (!initializing || initialized) {
    // Once initialized, only sidecar restarts count from the init containers.
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses: ContainerStatus[] = list(status.containerStatuses);
    // Walked backwards, so the first container's state has the last word.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] ?? {};
      restarts += c.restartCount ?? 0;
      if (c.lastState?.terminated) lastRestart = later(lastRestart, parseTimestamp(c.lastState.terminated.finishedAt));
      const st = c.state ?? {};
      if (st.waiting?.reason) reason = st.waiting.reason;
      else if (st.terminated?.reason) reason = st.terminated.reason;
      else if (st.terminated) reason = st.terminated.signal ? `Signal:${st.terminated.signal}` : `ExitCode:${st.terminated.exitCode ?? 0}`;
      else if (c.ready && st.running) {
        hasRunning = true;
        ready++;
      }
    }
    // Some containers completed while another still runs: the pod is Running (or NotReady), not Completed.
    if (reason === 'Completed' && hasRunning) {
      const podReady = list(status.conditions).some((c: { type?: string; status?: string }) => c?.type === 'Ready' && c?.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  const deleting = typeof pod.metadata?.deletionTimestamp === 'string' && pod.metadata.deletionTimestamp !== '';
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsCell = restarts !== 0 && lastRestart !== undefined ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsCell };
}

function readinessGates(pod: PrintableObject): string {
  const gates: { conditionType?: string }[] = list(pod.spec?.readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions: { type?: string; status?: string }[] = list(pod.status?.conditions);
  let satisfied = 0;
  for (const g of gates) {
    const c = conditions.find((x) => x?.type === g.conditionType);
    if (c?.status === 'True') satisfied++;
  }
  return `${satisfied}/${gates.length}`;
}

export const podPrinter: Printer = {
  columns: COLUMNS,
  row(pod, now): PrintedRow {
    const s = podSummary(pod, now);
    const podIP = str(pod.status?.podIPs?.[0]?.ip) || '<none>';
    const cells = [
      str(pod.metadata?.name), s.ready, s.status, s.restarts, translateTimestampSince(pod.metadata?.creationTimestamp, now),
      podIP, str(pod.spec?.nodeName) || '<none>', str(pod.status?.nominatedNodeName) || '<none>', readinessGates(pod),
    ];
    const phase = pod.status?.phase;
    return phase === 'Succeeded' ? { cells, conditions: SUCCEEDED } : phase === 'Failed' ? { cells, conditions: FAILED } : { cells };
  },
};
