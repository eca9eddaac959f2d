// The per-event trace records as classes of a fixed shape. A traced watch event makes about six records (watch event,
// fifo delta, pop, handler call, workqueue add and get), each read field by field by the cause linker and the
// `-o ndjson` writer: built as object literals with optional fields, the records of one stage came in several shapes
// and every reader's property access was megamorphic; a class per record gives each reader one shape to learn, and
// lets the ndjson writer read its fields by name (ndjson-buffer.ts) instead of walking them.
//
// Field order is the order the records had as literals (a record's details are printed in that order, see the
// ndjson contract in render/trace-printer.ts): every field is declared, in that order, and those a record lacks
// stay undefined, which every printer leaves out as it left out a field that was not there. Records of rarer forms
// (an ERROR event, a tombstone, a handler call with its objects, a queue op with details of its own) stay literals.
import type { Stage, TraceRecord } from './trace.js';
import type { WatchEventType } from './types.js';

/** What every record class shares: TraceRecord's open set of details, for the readers that walk a record's fields. */
abstract class LinkedRecord {
  [detail: string]: unknown;
}

/** A watch event that reached the reflector (stage watch; op and type are the event's type). */
export class WatchEventRecord extends LinkedRecord implements TraceRecord {
  time: number;
  readonly stage: Stage = 'watch';
  op: string;
  name: string;
  type: WatchEventType;
  key: string | undefined;
  rv: string | undefined;
  bytes: unknown;
  conn: unknown;
  id: number | undefined = undefined;
  echoOf: number | undefined = undefined;

  constructor(time: number, type: WatchEventType, name: string, key: string | undefined, rv: string | undefined, bytes: unknown, conn: unknown) {
    super();
    this.time = time;
    this.op = type;
    this.name = name;
    this.type = type;
    this.key = key;
    this.rv = rv;
    this.bytes = bytes;
    this.conn = conn;
  }
}

/** A delta queued in the real FIFO (not a tombstone's). */
export class FifoDeltaRecord extends LinkedRecord implements TraceRecord {
  time: number;
  readonly stage: Stage = 'fifo';
  op: string;
  key: string;
  rv: string | undefined;
  depth: number;
  fifo: string;
  id: number | undefined = undefined;
  cause: number[] | undefined = undefined;

  constructor(time: number, op: string, key: string, rv: string | undefined, depth: number, fifo: string) {
    super();
    this.time = time;
    this.op = op;
    this.key = key;
    this.rv = rv;
    this.depth = depth;
    this.fifo = fifo;
  }
}

/** A key's deltas popped from a FIFO (the real one's `batch` when it was popped with others). */
export class FifoPopRecord extends LinkedRecord implements TraceRecord {
  time: number;
  readonly stage: Stage = 'fifo';
  readonly op: string = 'pop';
  key: string;
  rv: string | undefined;
  deltas: number;
  types: string[];
  isInInitialList: boolean;
  depth: number;
  fifo: string;
  batch: number | undefined;
  id: number | undefined = undefined;
  cause: number[] | undefined = undefined;

  constructor(time: number, key: string, rv: string | undefined, types: string[], isInInitialList: boolean, depth: number, fifo: string, batch: number | undefined) {
    super();
    this.time = time;
    this.key = key;
    this.rv = rv;
    this.deltas = types.length;
    this.types = types;
    this.isInInitialList = isInInitialList;
    this.depth = depth;
    this.fifo = fifo;
    this.batch = batch;
  }
}

/** A handler call for an add or an update (without the objects, and not a delete: those stay literals). */
export class HandlerCallRecord extends LinkedRecord implements TraceRecord {
  time: number;
  readonly stage: Stage = 'handler';
  op: string;
  key: string;
  rv: string | undefined;
  listener: string;
  controller: string | undefined;
  isInInitialList: boolean | undefined;
  oldRv: string | undefined;
  sync: boolean | undefined;
  error: string | undefined;
  id: number | undefined = undefined;
  cause: number[] | undefined = undefined;

  constructor(time: number, op: string, key: string, rv: string | undefined, listener: string, controller: string | undefined, isInInitialList: boolean | undefined, oldRv: string | undefined, sync: boolean | undefined, error: string | undefined) {
    super();
    this.time = time;
    this.op = op;
    this.key = key;
    this.rv = rv;
    this.listener = listener;
    this.controller = controller;
    this.isInInitialList = isInInitialList;
    this.oldRv = oldRv;
    this.sync = sync;
    this.error = error;
  }
}

/** A workqueue op whose details are among reason, processing and reasons (add, dedup, get, done, requeue). */
export class QueueOpRecord extends LinkedRecord implements TraceRecord {
  time: number;
  readonly stage: Stage = 'workqueue';
  op: string;
  key: string;
  rv: string | undefined;
  queue: string;
  controller: string | undefined;
  depth: number;
  reason: unknown;
  processing: boolean | undefined;
  reasons: number | undefined;
  id: number | undefined = undefined;
  cause: number[] | undefined = undefined;
  echoOf: number | undefined = undefined;

  constructor(time: number, op: string, key: string, rv: string | undefined, queue: string, controller: string | undefined, depth: number, reason: unknown, processing: boolean | undefined, reasons: number | undefined) {
    super();
    this.time = time;
    this.op = op;
    this.key = key;
    this.rv = rv;
    this.queue = queue;
    this.controller = controller;
    this.depth = depth;
    this.reason = reason;
    this.processing = processing;
    this.reasons = reasons;
  }
}
