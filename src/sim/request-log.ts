// A bounded log of the requests the sim answered (for tests, `GET /_kwatch/state` and debugging).
import type { RequestVerb } from './faults.js';

export interface RequestRecord {
  time: number;
  method: string;
  /** Path plus query string, as sent. */
  url: string;
  verb: RequestVerb;
  /** HTTP status; 0 while a watch is still open. */
  code: number;
}

export class RequestLog {
  private records: RequestRecord[] = [];
  private total = 0;
  constructor(private readonly max = 2000) {}

  add(r: RequestRecord): RequestRecord {
    this.records.push(r);
    this.total++;
    if (this.records.length > this.max) this.records.splice(0, this.records.length - this.max);
    return r;
  }

  /** Most recent last. */
  entries(): RequestRecord[] { return this.records.slice(); }

  get count(): number { return this.total; }

  clear(): void { this.records = []; }
}
