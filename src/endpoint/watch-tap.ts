// A watch stream on its way to the client, line by line: each event is traced, and the `--inject` watch faults act on
// it (hidden, duplicated, held back, or followed by a broken connection or a 410). Whoever produces the stream — the
// forwarder or the fork's sim handler — writes into the ServerResponse as usual; the tap sits in its write and end.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultableWatch, WatchFaults } from '../faults/watch-faults.js';
import { objectKey } from './request-info.js';

export interface WatchEventSeen {
  type: string;
  object: Record<string, unknown> | undefined;
  key?: string;
  rv?: string;
}

export interface WatchObserver {
  /** The response began (status, content type). */
  started(status: number, contentType: string): void;
  /** An event was delivered to the client. */
  event(e: WatchEventSeen): void;
  /** A fault acted on the stream. */
  fault(text: string, e?: WatchEventSeen): void;
  /** The stream ended: timeout (the server's timeoutSeconds), 410, fault, client, server, error. */
  closed(reason: string): void;
}

type WriteArgs = [chunk: unknown, encoding?: unknown, cb?: unknown];

const EXPIRED_LINE = (why: string) => `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: injected by kwatch (${why})`, reason: 'Expired', code: 410 } })}\n`;

export function tapWatch(req: IncomingMessage, res: ServerResponse, faults: WatchFaults | undefined, observer: WatchObserver, opts: { timeoutSeconds?: number } = {}): void {
  const startedAt = Date.now();
  const origWrite = res.write.bind(res) as (...a: unknown[]) => boolean;
  const origEnd = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  const origWriteHead = res.writeHead;
  let json = true;
  let carry = '';
  let stopped = false;
  let closeReason: string | undefined;
  let saw410 = false;
  /** Lines waiting for their delay, oldest first. */
  const queue: { at: number; line: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let endAfterQueue = false;

  res.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
    const headers = rest.find((x) => typeof x === 'object' && x !== null) as Record<string, unknown> | undefined;
    const ct = String((headers && Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]) ?? res.getHeader('content-type') ?? '');
    json = code === 200 && /json/i.test(ct);
    observer.started(code, ct);
    const out = (origWriteHead as (...a: unknown[]) => ServerResponse).call(this, code, ...rest);
    if (json) process.nextTick(() => res.emit('kwatch-started'));
    return out;
  } as ServerResponse['writeHead'];

  /** While a chunk is split: its lines, written together after (one write per event cost a syscall each). */
  let batch: string[] | undefined;
  const flushBatch = (): boolean => {
    if (!batch?.length) return true;
    const text = batch.join('');
    batch.length = 0;
    return origWrite(text);
  };
  const send = (line: string) => {
    const d = faults?.delayMs() ?? 0;
    if (d <= 0 && queue.length === 0) {
      if (batch) { batch.push(line); return true; }
      return origWrite(line);
    }
    queue.push({ at: Date.now() + d, line });
    schedule();
    return true;
  };
  const schedule = () => {
    if (timer || queue.length === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      const now = Date.now();
      while (queue.length && queue[0].at <= now) origWrite(queue.shift()!.line);
      if (queue.length) schedule();
      else if (endAfterQueue) finish();
    }, Math.max(0, queue[0].at - Date.now()));
  };
  const finish = () => {
    if (res.writableEnded) return;
    flushBatch();
    origEnd();
  };

  const deliver = (line: string): void => {
    if (stopped) return;
    let parsed: { type?: unknown; object?: Record<string, unknown> } | undefined;
    try { parsed = JSON.parse(line) as typeof parsed; } catch { parsed = undefined; }
    const type = typeof parsed?.type === 'string' ? parsed.type : 'UNKNOWN';
    const object = parsed?.object;
    const meta = (object?.metadata ?? {}) as { name?: string; namespace?: string; resourceVersion?: string };
    const e: WatchEventSeen = { type, object, key: meta.name !== undefined ? objectKey(meta.namespace, meta.name) : undefined, rv: meta.resourceVersion };
    if (type === 'ERROR' && (object as { code?: number } | undefined)?.code === 410) saw410 = true;
    const f = faults && type !== 'ERROR' ? faults.forEvent(type, type === 'BOOKMARK' ? undefined : e.key, e.rv) : undefined;
    for (const text of f?.fired ?? []) observer.fault(text, e);
    if (f?.hide) return;
    send(`${line}\n`);
    observer.event(e);
    if (f?.duplicate) { send(`${line}\n`); observer.event(e); }
    if (f?.then === 'expire') expire(f.fired.join(','));
    else if (f?.then === 'drop-connection') drop();
  };

  const take = (chunk: unknown, encoding: unknown): boolean => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return true;
    if (stopped) return true;
    if (!json) return origWrite(chunk, encoding);
    const text = carry + (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    batch = [];
    try {
      for (const l of lines) if (l.trim() !== '') deliver(l.endsWith('\r') ? l.slice(0, -1) : l);
      flushBatch();
    } finally {
      batch = undefined;
    }
    return !res.writableNeedDrain;
  };

  res.write = function (...args: WriteArgs) {
    const ok = take(args[0], typeof args[1] === 'function' ? undefined : args[1]);
    const cb = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    if (cb) process.nextTick(cb);
    return ok;
  } as ServerResponse['write'];
  res.end = function (...args: WriteArgs) {
    take(args[0], typeof args[1] === 'function' ? undefined : args[1]);
    if (carry.trim() !== '' && json) { const last = carry; carry = ''; deliver(last); }
    closeReason ??= saw410 ? '410' : timedOut() ? 'timeout' : 'server';
    if (queue.length) { endAfterQueue = true; return res; }
    finish();
    return res;
  } as ServerResponse['end'];

  const timedOut = () => opts.timeoutSeconds !== undefined && Date.now() - startedAt >= opts.timeoutSeconds * 1000 - 1000;

  const expire = (why: string) => {
    if (stopped || res.writableEnded) return;
    stopped = true;
    // The client was sent a 410 (injected: the fault record says so), and must relist.
    closeReason = '410';
    const line = EXPIRED_LINE(why);
    send(line);
    const object = (JSON.parse(line) as { object: Record<string, unknown> }).object;
    observer.event({ type: 'ERROR', object });
    if (queue.length) endAfterQueue = true;
    else finish();
  };
  const drop = () => {
    if (res.destroyed) return;
    stopped = true;
    closeReason = 'fault';
    flushBatch();
    res.destroy();
  };
  const watch: FaultableWatch = {
    expire: (text) => { observer.fault(text); expire(text); },
    drop: (text) => { observer.fault(text); drop(); },
  };
  let unregister: (() => void) | undefined;
  // Registered once the watch is answered: a fault that fires at once then follows its headers.
  res.once('kwatch-started', () => { unregister = faults?.register(watch); });
  res.on('close', () => {
    unregister?.();
    if (timer) clearTimeout(timer);
    observer.closed(closeReason ?? (res.writableFinished ? 'server' : 'client'));
  });
  void req;
}
