// The spinner's text during a paged LIST: `listing pods: page 12, 6,000 of ~20,000 (remainingItemCount)`.
// Fed the reflector's list-page records; the total is an estimate the server gives only while paging.
import type { TraceRecord } from '../informer/trace.js';
import { groupDigits } from './format-units.js';

export class ListProgress {
  private pages = 0;
  private listed = 0;
  private remaining?: number;

  constructor(private readonly what: string) {}

  /** Takes a list-page record (others are ignored); true when the text changed. */
  add(r: TraceRecord): boolean {
    if (r.stage !== 'reflector' || r.op !== 'list-page') return false;
    this.pages++;
    this.listed += typeof r.items === 'number' ? r.items : 0;
    this.remaining = typeof r.remainingItemCount === 'number' ? r.remainingItemCount : undefined;
    return true;
  }

  text(): string {
    const n = groupDigits;
    const total = this.remaining !== undefined ? ` of ~${n(this.listed + this.remaining)} (remainingItemCount)` : '';
    return `listing ${this.what}: page ${this.pages}, ${n(this.listed)}${total}`;
  }
}
