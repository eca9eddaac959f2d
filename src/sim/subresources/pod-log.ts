// GET pods/NAME/log: the container's log from the sim's kubelet (container-log-lines.ts) as text/plain, with kube's
// PodLogOptions (container, follow, previous, timestamps, sinceSeconds, sinceTime, tailLines, limitBytes) and kube's
// errors: the apiserver's own (pkg/registry/core/pod/strategy.go LogLocation/validateContainer, 400; PodLogOptions
// validation, 422) and the kubelet's (pkg/kubelet/kubelet_pods.go validateContainerLogStatus), which the apiserver
// relays as 400 BadRequest with the kubelet's text as the message (pkg/registry/generic/rest/response_checker.go).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import type { ActiveWatch, ServerContext } from '../server-context.js';
import { queryBool } from '../list-options.js';
import { storageKey } from '../store.js';
import { badRequest, invalid, notFound, type FieldError } from '../status.js';
import { containerLogLines, containerStatusOf, HEARTBEAT_MS, rfc3339Nano, type LogLine } from './container-log-lines.js';

type Json = Record<string, any>;

interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: number;
  tailLines?: number;
  limitBytes?: number;
}

/** A query integer as kube's parameter codec reads it (strconv.ParseInt; a bad one is a 400). */
function int(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function parseOptions(q: URLSearchParams, pod: string): PodLogOptions {
  const sinceTimeText = q.get('sinceTime');
  let sinceTime: number | undefined;
  if (sinceTimeText !== null) {
    sinceTime = Date.parse(sinceTimeText);
    if (Number.isNaN(sinceTime)) throw badRequest(`parsing time ${JSON.stringify(sinceTimeText)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTimeText)} as "2006"`);
  }
  const opts: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: queryBool(q.get('follow')) === true,
    previous: queryBool(q.get('previous')) === true,
    timestamps: queryBool(q.get('timestamps')) === true,
    sinceSeconds: int(q, 'sinceSeconds'),
    sinceTime,
    tailLines: int(q, 'tailLines'),
    limitBytes: int(q, 'limitBytes'),
  };
  // pkg/apis/core/validation ValidatePodLogOptions, answered as PodLogOptions "<pod>" is invalid.
  const errs: FieldError[] = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) errs.push({ field: 'tailLines', type: 'Invalid value', value: opts.tailLines, detail: 'must be greater than or equal to 0' });
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errs.push({ field: 'limitBytes', type: 'Invalid value', value: opts.limitBytes, detail: 'must be greater than 0' });
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) errs.push({ field: '', type: 'Forbidden', detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified' });
  else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) errs.push({ field: 'sinceSeconds', type: 'Invalid value', value: opts.sinceSeconds, detail: 'must be greater than 0' });
  if (errs.length) throw invalid('PodLogOptions', '', pod, errs);
  return opts;
}

function containerNames(pod: SimObject, which: string): string[] {
  const list = (pod.spec as Json | undefined)?.[which];
  return (Array.isArray(list) ? list : []).map((c: Json) => String(c?.name));
}

/** The container the request means (strategy.go validateContainer): the only one, or the named one. */
function pickContainer(pod: SimObject, container: string): string {
  const name = pod.metadata.name!;
  const all = [...containerNames(pod, 'initContainers'), ...containerNames(pod, 'containers'), ...containerNames(pod, 'ephemeralContainers')];
  if (container === '') {
    const main = containerNames(pod, 'containers');
    if (main.length === 1) return main[0];
    if (main.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** The kubelet's checks before it opens the log (validateContainerLogStatus); the sim's containers never restart. */
function checkLogStatus(pod: SimObject, container: string, previous: boolean): void {
  const podName = pod.metadata.name!;
  const q = (s: string): string => JSON.stringify(s);
  const cs = containerStatusOf(pod, container);
  if (!cs) throw badRequest(`container ${q(container)} in pod ${q(podName)} is not available`);
  const state = (cs.state ?? {}) as Json;
  const last = (cs.lastState ?? {}) as Json;
  if (previous) {
    if (!last.terminated?.containerID) throw badRequest(`previous terminated container ${q(container)} in pod ${q(podName)} not found`);
    return;
  }
  if (state.running) return;
  if (state.terminated) {
    if (!state.terminated.containerID && !last.terminated?.containerID) throw badRequest(`container ${q(container)} in pod ${q(podName)} is terminated`);
    return;
  }
  if (last.terminated) {
    if (!last.terminated.containerID) throw badRequest(`container ${q(container)} in pod ${q(podName)} is terminated`);
    return;
  }
  if (state.waiting) {
    const reason = String(state.waiting.reason ?? '');
    if (reason === 'ErrImagePull') throw badRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') throw badRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`);
    throw badRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start: ${reason}`);
  }
  throw badRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`);
}

const lineKey = (l: LogLine): string => `${l.time}|${l.text}`;

export async function handlePodLog(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string, name: string, q: URLSearchParams): Promise<void> {
  const opts = parseOptions(q, name);
  const heartbeat = ctx.logHeartbeatMs ?? HEARTBEAT_MS;
  const current = (): SimObject | undefined => ctx.store.getStored(type, namespace, name)?.obj;
  const pod = current();
  if (!pod) throw notFound(type.resource, type.group, name);
  const container = pickContainer(pod, opts.container);
  const head = { 'Content-Type': 'text/plain' };
  // A pod no node runs has no log yet: kube answers an empty 200 (LogLocation returns no location).
  if (!(pod.spec as Json | undefined)?.nodeName) { res.writeHead(200, head); res.end(); return; }
  checkLogStatus(pod, container, opts.previous);

  const now = Date.now();
  let lines = containerLogLines(pod, container, now, heartbeat);
  if (opts.tailLines !== undefined) lines = opts.tailLines === 0 ? [] : lines.slice(-opts.tailLines);
  const since = opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : opts.sinceTime;
  const sent = new Set(containerLogLines(pod, container, now, heartbeat).map(lineKey));
  if (since !== undefined) lines = lines.filter((l) => l.time >= since);
  let budget = opts.limitBytes ?? Infinity;
  res.writeHead(200, head);
  /** Writes lines up to the byte limit; false once the limit is reached (the stream then ends, as the kubelet's does). */
  const write = (batch: LogLine[]): boolean => {
    let out = '';
    for (const l of batch) out += `${opts.timestamps ? `${rfc3339Nano(l.time)} ` : ''}${l.text}\n`;
    let bytes = Buffer.from(out, 'utf8');
    if (bytes.length >= budget) bytes = bytes.subarray(0, budget);
    budget -= bytes.length;
    if (bytes.length) res.write(bytes);
    return budget > 0;
  };
  if (!write(lines) || !opts.follow || terminated(pod, container)) { res.end(); return; }
  await follow(ctx, req, res, type, namespace, name, current, container, sent, write, heartbeat);
}

function terminated(pod: SimObject, container: string): boolean {
  return containerStatusOf(pod, container)?.state?.terminated !== undefined;
}

/** follow=true: new lines as the container writes them, until it stops, its pod goes, the client leaves or the sim closes. */
function follow(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string, name: string, current: () => SimObject | undefined, container: string, sent: Set<string>, write: (batch: LogLine[]) => boolean, heartbeat: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const key = storageKey(namespace, name);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      unsubscribe();
      ctx.watches.delete(active);
      ctx.faults.watchClosed(active);
      if (!res.writableEnded) res.end();
      resolve();
    };
    const active: ActiveWatch = { close: (mode) => { if (mode === 'reset') res.destroy(); finish(); } };
    const poll = (): void => {
      if (done) return;
      if (timer) clearTimeout(timer);
      const pod = current();
      if (!pod) return finish();
      const fresh = containerLogLines(pod, container, Date.now(), heartbeat).filter((l) => !sent.has(lineKey(l)));
      for (const l of fresh) sent.add(lineKey(l));
      if (!write(fresh) || terminated(pod, container)) return finish();
      timer = setTimeout(poll, heartbeat - ((Date.now() - firstLineTime(pod, container)) % heartbeat) + 5);
    };
    const unsubscribe = ctx.store.onCommit((change, changed) => {
      if (changed === type && change.key === key) poll();
    });
    ctx.watches.add(active);
    ctx.faults.watchOpened(active);
    req.on('close', finish);
    res.on('close', finish);
    poll();
  });
}

function firstLineTime(pod: SimObject, container: string): number {
  const state = (containerStatusOf(pod, container)?.state ?? {}) as Json;
  const t = Date.parse(String((state.running ?? state.terminated)?.startedAt ?? ''));
  return Number.isNaN(t) ? Date.now() : t;
}
