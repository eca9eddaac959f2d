// The `--inject` grammar shared by `reconcile` (module mode and --exec), `proxy` and `sim --mirror`: watch faults
// addressed by resourceVersion (as `replay --inject` has them) or by time since the start, and write faults addressed
// by the ordinal of the write. Parsing only: each consumer applies the faults where its watches and writes are.
import { durationMs } from '../informer/duration.js';

/** Where a watch fault fires: at the first event with this resourceVersion, or once this long after the start. */
export type FaultTrigger = { rv: string } | { afterMs: number };

export type WatchFaultKind = 'drop-connection' | 'expire' | 'duplicate';
export type WriteFaultKind = 'conflict' | 'error' | 'throttle';

/**
 * - drop-connection@AT: the watch connection breaks (the client re-watches from its last resourceVersion).
 * - expire@AT: the watch is answered with ERROR 410 Expired (the client relists).
 * - duplicate@AT: the event arrives twice (with a time trigger: the next event after it).
 * - hide-delete:KEY: DELETED events of namespace/name never arrive.
 * - delay:DURATION[@AT]: every watch event from AT on (default: the start) is delivered DURATION late.
 * - conflict@N, error@N, throttle@N: the Nth write (1-based) is answered 409 Conflict, 500, or 429 with Retry-After.
 */
export type InjectFault =
  | { kind: WatchFaultKind; at: FaultTrigger }
  | { kind: 'hide-delete'; key: string }
  | { kind: 'delay'; ms: number; at?: FaultTrigger }
  | { kind: WriteFaultKind; write: number };

const WATCH_KINDS: readonly string[] = ['drop-connection', 'expire', 'duplicate'];
const WRITE_KINDS: readonly string[] = ['conflict', 'error', 'throttle'];
/** A time has a unit; anything else after @ is a resourceVersion (kube's are opaque strings, in practice digits). */
const TIME = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
/** Node's timers hold at most 2^31-1 ms (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const INJECT_USAGE = 'use drop-connection@AT, expire@AT, duplicate@AT, delay:DURATION[@AT], hide-delete:NAMESPACE/NAME, conflict@N, error@N or throttle@N (AT: a resourceVersion, or a time since the start such as 5s)';

/** Parses one `--inject` value; throws RangeError with a one-line explanation. */
export function parseInjectSpec(spec: string): InjectFault {
  const s = spec.trim();
  const bad = (why: string) => new RangeError(`invalid --inject "${spec}": ${why}`);
  const hide = /^hide-delete:(.+)$/.exec(s);
  if (hide) return { kind: 'hide-delete', key: hide[1].trim() };
  const delay = /^delay:([^@]+)(?:@(.+))?$/.exec(s);
  if (delay) {
    const ms = durationOf(delay[1].trim());
    if (ms === undefined) throw bad(`"${delay[1]}" is not a duration (e.g. 500ms, 2s)`);
    return delay[2] === undefined ? { kind: 'delay', ms } : { kind: 'delay', ms, at: trigger(delay[2].trim()) };
  }
  const at = /^([a-z-]+)@(.+)$/.exec(s);
  if (at && WATCH_KINDS.includes(at[1])) return { kind: at[1] as WatchFaultKind, at: trigger(at[2].trim()) };
  if (at && WRITE_KINDS.includes(at[1])) {
    const n = Number(at[2]);
    if (!/^\d+$/.test(at[2].trim()) || n < 1 || !Number.isSafeInteger(n)) throw bad(`${at[1]}@N takes the ordinal of a write, a whole number from 1`);
    return { kind: at[1] as WriteFaultKind, write: n };
  }
  throw bad(INJECT_USAGE);
}

/** The spec a fault was parsed from, normalised (for trace records and messages). */
export function describeInject(f: InjectFault): string {
  const atText = (t: FaultTrigger) => ('rv' in t ? t.rv : `${t.afterMs}ms`);
  switch (f.kind) {
    case 'hide-delete': return `hide-delete:${f.key}`;
    case 'delay': return `delay:${f.ms}ms${f.at ? `@${atText(f.at)}` : ''}`;
    case 'conflict': case 'error': case 'throttle': return `${f.kind}@${f.write}`;
    default: return `${f.kind}@${atText(f.at)}`;
  }
}

export const isWriteFault = (f: InjectFault): f is Extract<InjectFault, { write: number }> => WRITE_KINDS.includes(f.kind);

function trigger(s: string): FaultTrigger {
  if (TIME.test(s)) return { afterMs: durationOf(s)! };
  if (s === '') throw new RangeError('invalid --inject: @ needs a resourceVersion or a time such as 5s');
  return { rv: s };
}

function durationOf(s: string): number | undefined {
  if (!TIME.test(s)) return undefined;
  const ms = durationMs(s);
  if (ms !== undefined && ms > MAX_TIMER_MS) throw new RangeError(`invalid --inject: ${s} is longer than the 24 days a timer can wait`);
  return ms;
}
