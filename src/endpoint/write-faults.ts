// The write faults of `--inject` (conflict@N, error@N, throttle@N): the Nth write a client sends through the endpoint is
// answered as a real API server would answer it in trouble, so a controller's error paths run without a cluster.
import { describeInject, isWriteFault, type InjectFault } from '../faults/inject-spec.js';
import { SimApiError } from '../sim/api.js';
import type { RequestInfo } from './request-info.js';

export interface FiredWriteFault {
  text: string;
  /** The answer, for a write of `name` (a create names its object in the body). */
  error(info: RequestInfo, name: string | undefined): SimApiError;
}

export class WriteFaults {
  private readonly byOrdinal = new Map<number, InjectFault & { kind: 'conflict' | 'error' | 'throttle' }>();
  private writes = 0;

  constructor(faults: readonly InjectFault[]) {
    for (const f of faults) if (isWriteFault(f)) this.byOrdinal.set(f.write, f);
  }

  /** Counts one write; answers the fault it gets, if any. */
  next(): FiredWriteFault | undefined {
    const f = this.byOrdinal.get(++this.writes);
    if (!f) return undefined;
    this.byOrdinal.delete(this.writes);
    return { text: describeInject(f), error: (info, name) => faultStatus(f.kind, info, name ?? info.name ?? '', describeInject(f)) };
  }

  /** Write faults whose write never came. */
  unused(): string[] {
    return [...this.byOrdinal.values()].map(describeInject);
  }
}

function faultStatus(kind: 'conflict' | 'error' | 'throttle', info: RequestInfo, name: string, text: string): SimApiError {
  const qualified = info.group ? `${info.resource}.${info.group}` : info.resource;
  const details = { name, group: info.group, kind: info.resource };
  const base = { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const };
  switch (kind) {
    case 'conflict':
      return new SimApiError({ ...base, code: 409, reason: 'Conflict', details, message: `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again (injected by kwatch: ${text})` });
    case 'error':
      return new SimApiError({ ...base, code: 500, reason: 'InternalError', details: { ...details, causes: [{ message: `injected by kwatch: ${text}` }] }, message: `Internal error occurred: injected by kwatch (${text})` });
    case 'throttle':
      return new SimApiError({ ...base, code: 429, reason: 'TooManyRequests', details: { ...details, retryAfterSeconds: 1 }, message: `the server has received too many requests and has asked us to try again later (injected by kwatch: ${text})` });
  }
}
