// The log of a container as the sim's kubelet writes it: a start line when the container starts running, a line
// every HEARTBEAT_MS while it runs, a SIGTERM line when its pod is deleted and an exit line when it stops. The lines
// are read off the pod's status (what the kubelet reported), so they are the same for the kubelet stand-in's pods
// and the workload generator's, and a restart of the sim's reader never loses them.
import type { SimObject } from '../api.js';

type Json = Record<string, any>;

/** How often a running container writes a line, unless the server is told otherwise (SimServerOptions.logHeartbeatMs). */
export const HEARTBEAT_MS = 10_000;

export interface LogLine {
  /** When the container wrote it (epoch ms). */
  time: number;
  text: string;
}

const ms = (t: unknown): number | undefined => (typeof t === 'string' && t !== '' ? Date.parse(t) : undefined);

/** The container's status (containers, then init and ephemeral containers, as the kubelet looks it up). */
export function containerStatusOf(pod: SimObject, container: string): Json | undefined {
  const status = (pod.status ?? {}) as Json;
  for (const list of [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses]) {
    const found = (Array.isArray(list) ? list : []).find((c: Json) => c?.name === container);
    if (found) return found as Json;
  }
  return undefined;
}

/** The lines the container has written by `now` (in order). */
export function containerLogLines(pod: SimObject, container: string, now: number, heartbeatMs = HEARTBEAT_MS): LogLine[] {
  const cs = containerStatusOf(pod, container);
  const state = (cs?.state ?? {}) as Json;
  const run = (state.running ?? state.terminated) as Json | undefined;
  const started = ms(run?.startedAt);
  if (!run || started === undefined) return [];
  const image = String(cs?.image ?? '');
  const finished = ms(state.terminated?.finishedAt);
  // The kubelet sends SIGTERM when the pod is marked for deletion: deletionTimestamp less the grace period.
  const deletion = ms(pod.metadata.deletionTimestamp);
  const sigterm = deletion === undefined ? undefined : deletion - Number(pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  const end = Math.min(now, finished ?? Infinity, sigterm ?? Infinity);
  const lines: LogLine[] = [{ time: started, text: `container ${container} started (image ${image})` }];
  for (let t = started + heartbeatMs; t <= end; t += heartbeatMs) {
    lines.push({ time: t, text: `container ${container} running, up ${Math.round((t - started) / 1000)}s` });
  }
  if (sigterm !== undefined && sigterm <= now && (finished === undefined || sigterm <= finished)) {
    lines.push({ time: Math.max(sigterm, started), text: `container ${container} received SIGTERM, shutting down` });
  }
  if (finished !== undefined && finished <= now) {
    const code = Number(state.terminated?.exitCode ?? 0);
    lines.push({ time: finished, text: `container ${container} exited with code ${code}` });
  }
  return lines;
}

/** Go's time.RFC3339Nano in UTC, as the kubelet prefixes lines with timestamps=true (trailing zeros dropped). */
export function rfc3339Nano(time: number): string {
  const iso = new Date(time).toISOString(); // 2026-01-02T03:04:05.678Z
  const [whole, frac] = iso.slice(0, -1).split('.');
  const digits = (frac ?? '').replace(/0+$/, '');
  return `${whole}${digits ? `.${digits}` : ''}Z`;
}
