// The per-client panel of `reconcile --exec --live` and `proxy --live`, from the endpoint's trace alone: for each client
// (a process under --exec, else a User-Agent) its requests per second, watches open, relists, writes, and the newest
// derived records (relist, stale-write, loop, stall, conflict) as one line each.
import type { TraceRecord } from '../../informer/trace.js';
import { escapeForTerminal } from '../terminal-escape.js';

/** Requests per second are counted over this window. */
const RATE_WINDOW_MS = 10_000;
/** Derived records shown: the newest. */
const NOTES = 5;

interface ClientRow {
  requests: number;
  recent: number[];
  watches: number;
  relists: number;
  writes: number;
  failed: number;
}

export class EndpointStats {
  private readonly clients = new Map<string, ClientRow>();
  private readonly notes: string[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A TraceListener. */
  readonly add = (r: TraceRecord): void => {
    if (r.stage !== 'endpoint') return;
    const name = typeof r.client === 'string' ? r.client : '?';
    let c = this.clients.get(name);
    if (!c) this.clients.set(name, (c = { requests: 0, recent: [], watches: 0, relists: 0, writes: 0, failed: 0 }));
    switch (r.op) {
      case 'http':
        c.requests++;
        c.recent.push(r.time);
        if (typeof r.status === 'number' && r.status >= 500) c.failed++;
        break;
      case 'watch':
        if (r.event === 'start') c.watches++;
        else if (r.event === 'close') c.watches = Math.max(0, c.watches - 1);
        break;
      case 'write':
        c.writes++;
        break;
      case 'relist':
        c.relists++;
        this.note(`relist ${name} ${String(r.resource ?? '')}: ${String(r.reason ?? '')}`);
        break;
      case 'stale-write': case 'stale-read': case 'loop': case 'stall': case 'conflict': case 'question':
        this.note(`${r.op} ${name} ${r.key ?? String(r.resource ?? '')}${typeof r.note === 'string' ? `: ${r.note}` : ''}`);
        break;
    }
  };

  private note(line: string): void {
    this.notes.push(line);
    if (this.notes.length > NOTES) this.notes.shift();
  }

  /** One line per client, then the newest derived records. */
  lines(): string[] {
    const since = this.now() - RATE_WINDOW_MS;
    const rows = [...this.clients.entries()].map(([name, c]) => {
      c.recent = c.recent.filter((t) => t >= since);
      return `${name}: ${(c.recent.length / (RATE_WINDOW_MS / 1000)).toFixed(1)} req/s (${c.requests})  watches open ${c.watches}  relists ${c.relists}  writes ${c.writes}${c.failed ? `  failed ${c.failed}` : ''}`;
    });
    return [...(rows.length ? rows : ['no client yet']), ...this.notes].map((l) => escapeForTerminal(l));
  }
}
