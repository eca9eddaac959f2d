// Faults injected into a replayed watch stream (`kwatch replay FILE --inject …`): parsing and bookkeeping.

/**
 * - drop-connection@RV: the connection breaks right after the event at RV (the reflector re-watches from RV).
 * - expire@RV: after the event at RV the server answers ERROR 410 Expired (the reflector relists).
 * - duplicate@RV: the event at RV arrives twice.
 * - hide-delete:KEY: the DELETED event of KEY never arrives (a later relist finds the object gone).
 */
export type ReplayFault =
  | { kind: 'drop-connection' | 'expire' | 'duplicate'; rv: string }
  | { kind: 'hide-delete'; key: string };

const AT_KINDS = ['drop-connection', 'expire', 'duplicate'] as const;

/** Parses one `--inject` value; throws RangeError with a one-line explanation. */
export function parseReplayFault(spec: string): ReplayFault {
  const s = spec.trim();
  const hide = /^hide-delete:(.+)$/.exec(s);
  if (hide) return { kind: 'hide-delete', key: hide[1].trim() };
  const at = /^([a-z-]+)@(.+)$/.exec(s);
  if (at && (AT_KINDS as readonly string[]).includes(at[1])) return { kind: at[1] as (typeof AT_KINDS)[number], rv: at[2].trim() };
  throw new RangeError(`invalid --inject "${spec}": use drop-connection@RV, expire@RV, duplicate@RV or hide-delete:NAMESPACE/NAME`);
}

export function describeFault(f: ReplayFault): string {
  return f.kind === 'hide-delete' ? `hide-delete:${f.key}` : `${f.kind}@${f.rv}`;
}

/** What to do with one recorded event. */
export interface EventFaults {
  /** Leave the event out (hide-delete). */
  hide: boolean;
  /** Deliver it twice. */
  duplicate: boolean;
  /** After it: break the connection, or send ERROR 410; undefined = carry on. */
  then?: 'drop-connection' | 'expire';
}

/**
 * The faults of one replay, shared by every resource's stream. An @RV fault fires once, at the first
 * event with that resourceVersion; hide-delete hides every DELETED event of its key.
 */
export class ReplayFaults {
  private readonly used = new Set<ReplayFault>();

  constructor(readonly faults: ReplayFault[] = []) {}

  get empty(): boolean {
    return this.faults.length === 0;
  }

  /** Decides (and marks as used) what happens to an event of `type` for `key` at `rv`. */
  forEvent(type: string, key: string, rv: string | undefined): EventFaults {
    const out: EventFaults = { hide: false, duplicate: false };
    for (const f of this.faults) {
      if (f.kind === 'hide-delete') {
        if (type === 'DELETED' && f.key === key) {
          out.hide = true;
          this.used.add(f);
        }
        continue;
      }
      if (rv === undefined || f.rv !== rv || this.used.has(f)) continue;
      this.used.add(f);
      if (f.kind === 'duplicate') out.duplicate = true;
      else out.then ??= f.kind;
    }
    return out;
  }

  /** Faults that never matched an event. */
  unused(): ReplayFault[] {
    return this.faults.filter((f) => !this.used.has(f));
  }
}
