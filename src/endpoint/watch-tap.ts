// A watch stream on its way to the client, line by line: each event is traced, and the `--inject` watch faults act on
// it (hidden, duplicated, held back, or followed by a broken connection or a 410). Whoever produces the stream — the
// forwarder or the fork's sim handler — writes into the ServerResponse as usual; the tap sits in its write and end.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultableWatch, WatchFaults } from '../faults/watch-faults.js';
import { decodedWatchEvent, scanWatchEvent, type ScannedEvent } from './body-scan.js';
import { isCborType } from '../kube/http/cbor-media.js';
import { decodeFirstCbor } from '../kube/http/cbor-body.js';
import { ownedCopy } from '../kube/http/owned-copy.js';
import { isProtobufType } from '../kube/http/protobuf-media.js';
import { decodeWatchEvent } from '../wire/protobuf/watch-event.js';
import { skipSpace } from './json-scan.js';
import { breakAfterWritten } from './break-response.js';

export interface WatchObserver {
  /** The response began (status, content type). */
  started(status: number, contentType: string): void;
  /** An event was delivered to the client. */
  event(e: ScannedEvent): void;
  /** A fault acted on the stream. */
  fault(text: string, e?: ScannedEvent): void;
  /** The stream ended: timeout (the server's timeoutSeconds), 410, fault, client, server, error. */
  closed(reason: string): void;
}

type WriteArgs = [chunk: unknown, encoding?: unknown, cb?: unknown];

const NEWLINE = 0x0a;
const EXPIRED_LINE = (why: string) => Buffer.from(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: injected by kwatch (${why})`, reason: 'Expired', code: 410 } })}\n`);

export function tapWatch(req: IncomingMessage, res: ServerResponse, faults: WatchFaults | undefined, observer: WatchObserver, opts: { timeoutSeconds?: number } = {}): void {
  const startedAt = Date.now();
  const origWrite = res.write.bind(res) as (...a: unknown[]) => boolean;
  const origEnd = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  const origWriteHead = res.writeHead;
  let json = true;
  /**
   * An application/cbor-seq watch (KEP-4222): its bytes go on untouched, as they came, and each complete item is
   * decoded for the trace; the stream faults act on JSON lines only, so none acts here.
   */
  let cbor = false;
  let pendingItem: Buffer | undefined;
  /** A protobuf `;stream=watch` (length-prefixed WatchEvents): passed on untouched too, each frame decoded for the trace. */
  let protobuf = false;
  /** The start of a line whose end has not come yet. */
  let carry: Buffer | undefined;
  let stopped = false;
  let closeReason: string | undefined;
  let saw410 = false;
  /** Lines waiting for their delay, oldest first. */
  const queue: { at: number; line: Buffer }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let endAfterQueue = false;
  /** A drop-connection fault fired: the response is broken, not ended, once its last bytes are out. */
  let dropped = false;

  res.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
    const headers = rest.find((x) => typeof x === 'object' && x !== null) as Record<string, unknown> | undefined;
    const ct = String((headers && Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]) ?? res.getHeader('content-type') ?? '');
    json = code === 200 && /json/i.test(ct);
    cbor = code === 200 && isCborType(ct);
    protobuf = code === 200 && isProtobufType(ct);
    observer.started(code, ct);
    const out = (origWriteHead as (...a: unknown[]) => ServerResponse).call(this, code, ...rest);
    if (json) process.nextTick(() => res.emit('kwatch-started'));
    return out;
  } as ServerResponse['writeHead'];

  /** While a chunk is split: its lines, written together after (one write per event cost a syscall each). */
  let batch: Buffer[] | undefined;
  const flushBatch = (): boolean => {
    if (!batch?.length) return true;
    const data = batch.length === 1 ? batch[0] : Buffer.concat(batch);
    batch.length = 0;
    return origWrite(data);
  };
  const send = (line: Buffer) => {
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
    if (res.writableEnded || res.destroyed) return;
    flushBatch();
    // A dropped connection breaks only after what was written went out (the event the fault fired on included).
    if (dropped) { breakAfterWritten(res); return; }
    origEnd();
  };

  /**
   * One line, `buf[from, to)` (with its newline, when it had one). `passed`: the line went out already, with the chunk
   * it came in (no fault can act on the stream, so its bytes are passed on as they came and only watched).
   */
  const deliver = (buf: Buffer, from: number, to: number, passed: boolean): void => {
    if (stopped) return;
    const e = scanWatchEvent(buf, from, to);
    if (e.type === 'ERROR' && e.status?.code === 410) saw410 = true;
    const f = faults && e.type !== 'ERROR' ? faults.forEvent(e.type, e.type === 'BOOKMARK' ? undefined : e.key, e.rv) : undefined;
    for (const text of f?.fired ?? []) observer.fault(text, e);
    if (f?.hide) return;
    let out: Buffer | undefined;
    if (!passed) {
      const line = buf.subarray(from, to);
      out = line[line.length - 1] === NEWLINE ? line : Buffer.concat([line, Buffer.from('\n')]);
      send(out);
    }
    observer.event(e);
    if (f?.duplicate && out) { send(out); observer.event(e); }
    if (f?.then === 'expire') expire(f.fired.join(','));
    else if (f?.then === 'drop-connection') drop();
  };

  const isBlank = (b: Buffer, from: number, to: number) => skipSpace(b, from) >= to;

  /** The complete CBOR items so far, each to the observer; an item split across chunks waits for the rest. */
  const observeCbor = (buf: Buffer): void => {
    let pending = pendingItem ? Buffer.concat([pendingItem, buf]) : buf;
    while (pending.length > 0) {
      let item: [unknown, Uint8Array];
      try {
        item = decodeFirstCbor(pending);
      } catch {
        break; // most likely the item's end is still to come
      }
      const e = decodedWatchEvent(item[0]) ?? { type: 'UNKNOWN' };
      if (e.type === 'ERROR' && e.status?.code === 410) saw410 = true;
      observer.event(e);
      pending = pending.subarray(pending.length - item[1].length);
    }
    // Copied: the writer may reuse its chunk once written.
    pendingItem = pending.length ? ownedCopy(pending) : undefined;
  };

  /** The complete protobuf frames so far, each to the observer; a frame split across chunks waits for the rest. */
  const observeProtobuf = (buf: Buffer): void => {
    let pending = pendingItem ? Buffer.concat([pendingItem, buf]) : buf;
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const len = pending.readUInt32BE(0);
      let e: ReturnType<typeof decodedWatchEvent>;
      try {
        e = decodedWatchEvent(decodeWatchEvent(pending.subarray(4, 4 + len)));
      } catch {
        e = undefined; // a kind src/wire has no schema for: the event is counted, unread
      }
      const event = e ?? { type: 'UNKNOWN' };
      if (event.type === 'ERROR' && event.status?.code === 410) saw410 = true;
      observer.event(event);
      pending = pending.subarray(4 + len);
    }
    pendingItem = pending.length ? ownedCopy(pending) : undefined;
  };

  const take = (chunk: unknown, encoding: unknown): boolean => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return true;
    if (stopped) return true;
    if (cbor || protobuf) {
      const u8 = chunk as Uint8Array;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : Buffer.isBuffer(u8) ? u8 : Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
      const ok = origWrite(chunk, encoding);
      if (cbor) observeCbor(bytes); else observeProtobuf(bytes);
      return ok;
    }
    if (!json) return origWrite(chunk, encoding);
    const u = chunk as Uint8Array;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    const passed = faults === undefined;
    const ok = passed ? origWrite(buf) : true;
    batch = passed ? undefined : [];
    try {
      let from = 0;
      let nl = buf.indexOf(NEWLINE);
      if (carry) {
        // Only the line that was split is joined; the rest of the chunk is read where it lies.
        if (nl < 0) { carry = ownedCopy(carry, buf); return passed ? ok : !res.writableNeedDrain; }
        const line = Buffer.concat([carry, buf.subarray(0, nl + 1)]);
        carry = undefined;
        from = nl + 1;
        nl = buf.indexOf(NEWLINE, from);
        if (!isBlank(line, 0, line.length)) deliver(line, 0, line.length, passed);
      }
      for (; nl >= 0; nl = buf.indexOf(NEWLINE, from)) {
        const at = from;
        from = nl + 1;
        if (!isBlank(buf, at, from)) deliver(buf, at, from, passed);
      }
      // Copied (the writer may reuse its chunk once written), into memory of its own: it waits for the line's end.
      if (from < buf.length) carry = ownedCopy(buf.subarray(from));
      if (!passed) flushBatch();
    } finally {
      batch = undefined;
    }
    return passed ? ok : !res.writableNeedDrain;
  };

  res.write = function (...args: WriteArgs) {
    const ok = take(args[0], typeof args[1] === 'function' ? undefined : args[1]);
    const cb = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    if (cb) process.nextTick(cb);
    return ok;
  } as ServerResponse['write'];
  res.end = function (...args: WriteArgs) {
    take(args[0], typeof args[1] === 'function' ? undefined : args[1]);
    // As http's own end: its callback runs once the response finished (the end itself may wait for a delay's queue).
    const cb = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    if (cb) res.once('finish', cb);
    if (carry && json && !isBlank(carry, 0, carry.length)) { const last = carry; carry = undefined; deliver(last, 0, last.length, faults === undefined); }
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
    observer.event(scanWatchEvent(line));
    if (queue.length) endAfterQueue = true;
    else finish();
  };
  const drop = () => {
    if (res.destroyed || dropped) return;
    stopped = true;
    dropped = true;
    closeReason = 'fault';
    // Held-back (delayed) events go out first, as before an injected 410.
    if (queue.length) endAfterQueue = true;
    else finish();
  };
  const watch: FaultableWatch = {
    // A watch already cut (its 410 still draining to the client) is done with faults: no second record for it.
    expire: (text) => { if (stopped) return; observer.fault(text); expire(text); },
    drop: (text) => { if (stopped) return; observer.fault(text); drop(); },
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
