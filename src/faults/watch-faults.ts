// The watch faults of one endpoint run (`--inject`), shared by every watch it serves: each @RV fault fires at the first
// event with that resourceVersion, each @TIME fault at that time since the start (on the watches open then, or on the
// next event when none is), hide-delete hides every DELETED event of its key, delay holds events back.
import { describeInject, type InjectFault, type WatchFaultKind } from './inject-spec.js';

/** What happens to one event about to be delivered. */
export interface EventFaults {
  hide: boolean;
  duplicate: boolean;
  then?: 'drop-connection' | 'expire';
  /** The faults that fired on it, as given (for the trace). */
  fired: string[];
}

/** A watch being served, as the faults act on it. */
export interface FaultableWatch {
  expire(fault: string): void;
  drop(fault: string): void;
}

type Armed = { fault: InjectFault & { kind: WatchFaultKind }; text: string };

export class WatchFaults {
  private readonly byRv = new Map<string, Armed[]>();
  private readonly hidden = new Map<string, string>();
  /** @TIME faults whose time came with no watch open (or duplicates, which act on an event): they fire on the next event. */
  private pending: Armed[] = [];
  private delay?: { ms: number; fromMs: number };
  private readonly watches = new Set<FaultableWatch>();
  private readonly timers: NodeJS.Timeout[] = [];
  /** @TIME faults whose time has not come yet. */
  private readonly waiting = new Set<Armed>();
  private startedAt = 0;
  readonly unusedAtEnd: string[] = [];

  constructor(private readonly faults: readonly InjectFault[], private readonly now: () => number = Date.now) {
    for (const f of faults) {
      if (f.kind === 'hide-delete') this.hidden.set(f.key, describeInject(f));
      else if (f.kind === 'delay') continue;
      else if (f.kind === 'drop-connection' || f.kind === 'expire' || f.kind === 'duplicate') {
        if ('rv' in f.at) {
          const list = this.byRv.get(f.at.rv) ?? [];
          list.push({ fault: f, text: describeInject(f) });
          this.byRv.set(f.at.rv, list);
        }
      }
    }
  }

  get empty(): boolean {
    return this.faults.every((f) => f.kind === 'conflict' || f.kind === 'error' || f.kind === 'throttle');
  }

  /** Starts the clock of @TIME faults (when the child starts, or the proxy listens). */
  start(): void {
    this.startedAt = this.now();
    for (const f of this.faults) {
      if (f.kind === 'delay') { this.delay = { ms: f.ms, fromMs: f.at && 'afterMs' in f.at ? f.at.afterMs : 0 }; continue; }
      if ((f.kind === 'drop-connection' || f.kind === 'expire' || f.kind === 'duplicate') && 'afterMs' in f.at) {
        const armed = { fault: f, text: describeInject(f) };
        this.waiting.add(armed);
        const t = setTimeout(() => this.fireAtTime(armed), f.at.afterMs);
        t.unref();
        this.timers.push(t);
      }
    }
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  /** A watch opened: an @TIME fault whose time came while none was open fires on it. */
  register(w: FaultableWatch): () => void {
    this.watches.add(w);
    const due = this.pending.filter((a) => a.fault.kind !== 'duplicate');
    if (due.length) {
      this.pending = this.pending.filter((a) => a.fault.kind === 'duplicate');
      for (const a of due) {
        if (a.fault.kind === 'expire') w.expire(a.text);
        else w.drop(a.text);
      }
    }
    return () => this.watches.delete(w);
  }

  /** How long events are held back now (delay:DURATION[@AT]). */
  delayMs(): number {
    const d = this.delay;
    return d && this.now() - this.startedAt >= d.fromMs ? d.ms : 0;
  }

  /** Decides (and uses up) what happens to an event of `type` for `key` at `rv`. */
  forEvent(type: string, key: string | undefined, rv: string | undefined): EventFaults {
    const out: EventFaults = { hide: false, duplicate: false, fired: [] };
    if (type === 'DELETED' && key !== undefined) {
      const hide = this.hidden.get(key);
      if (hide) { out.hide = true; out.fired.push(hide); }
    }
    const due = [...this.pending, ...(rv !== undefined ? (this.byRv.get(rv) ?? []) : [])];
    if (due.length === 0) return out;
    this.pending = [];
    if (rv !== undefined) this.byRv.delete(rv);
    for (const a of due) {
      out.fired.push(a.text);
      if (a.fault.kind === 'duplicate') out.duplicate = true;
      else out.then ??= a.fault.kind;
    }
    return out;
  }

  /** Faults that never fired (said at the end, as `replay` does). */
  unused(): string[] {
    return [...[...this.byRv.values()].flat(), ...this.waiting, ...this.pending].map((a) => a.text);
  }

  private fireAtTime(a: Armed): void {
    this.waiting.delete(a);
    if (a.fault.kind === 'duplicate' || this.watches.size === 0) { this.pending.push(a); return; }
    for (const w of [...this.watches]) {
      if (a.fault.kind === 'expire') w.expire(a.text);
      else w.drop(a.text);
    }
  }
}
