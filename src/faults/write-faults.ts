// The write faults of `--inject` (conflict@N, error@N, throttle@N): the Nth write is answered as a real API server in
// trouble would answer it, so a controller's error paths run without a cluster. Shared by the endpoint (a controller
// process's writes) and module mode (ctx writes); each wraps the Status in its own error type.
import type { Status } from '../informer/types.js';
import { describeInject, isWriteFault, type InjectFault, type WriteFaultKind } from './inject-spec.js';

/** The object a write is about, as a Status's details name it. */
export interface WriteTarget {
  group: string;
  resource: string;
  name: string;
}

export interface FiredWriteFault {
  /** The fault as given (for the trace and the x-kwatch-injected header). */
  text: string;
  kind: WriteFaultKind;
  /** The answer to the faulted write. */
  status(target: WriteTarget): Status;
}

export class WriteFaults {
  private readonly byOrdinal = new Map<number, InjectFault & { kind: WriteFaultKind }>();
  private writes = 0;

  constructor(faults: readonly InjectFault[]) {
    for (const f of faults) if (isWriteFault(f)) this.byOrdinal.set(f.write, f);
  }

  get empty(): boolean {
    return this.byOrdinal.size === 0 && this.writes === 0;
  }

  /** Counts one write; answers the fault it gets, if any. */
  next(): FiredWriteFault | undefined {
    const f = this.byOrdinal.get(++this.writes);
    if (!f) return undefined;
    this.byOrdinal.delete(this.writes);
    const text = describeInject(f);
    return { text, kind: f.kind, status: (target) => faultStatus(f.kind, target, text) };
  }

  /** Write faults whose write never came. */
  unused(): string[] {
    return [...this.byOrdinal.values()].map(describeInject);
  }
}

/** Retry-After of an injected 429, in seconds (client-go waits this long before it retries). */
export const THROTTLE_RETRY_AFTER_SECONDS = 1;

function faultStatus(kind: WriteFaultKind, target: WriteTarget, text: string): Status {
  const qualified = target.group ? `${target.resource}.${target.group}` : target.resource;
  const details = { name: target.name, group: target.group, kind: target.resource };
  const base = { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const };
  switch (kind) {
    case 'conflict':
      return { ...base, code: 409, reason: 'Conflict', details, message: `Operation cannot be fulfilled on ${qualified} "${target.name}": the object has been modified; please apply your changes to the latest version and try again (injected by kwatch: ${text})` };
    case 'error':
      return { ...base, code: 500, reason: 'InternalError', details: { ...details, causes: [{ message: `injected by kwatch: ${text}` }] }, message: `Internal error occurred: injected by kwatch (${text})` };
    case 'throttle':
      return { ...base, code: 429, reason: 'TooManyRequests', details: { ...details, retryAfterSeconds: THROTTLE_RETRY_AFTER_SECONDS }, message: `the server has received too many requests and has asked us to try again later (injected by kwatch: ${text})` };
  }
}
