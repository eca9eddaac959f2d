// Sparklines for the live dashboard: a per-second series over the last minute, drawn with the eight
// unicode block characters (▁ … █), scaled to the series' own maximum.

const BLOCKS = '▁▂▃▄▅▆▇█';

/** One block per value, the tallest at the series' maximum; zeros are the lowest block (a flat line). */
export function sparkline(values: readonly number[]): string {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  let out = '';
  for (const v of values) out += max <= 0 || v <= 0 ? BLOCKS[0] : BLOCKS[Math.min(7, Math.max(1, Math.ceil((v / max) * 7)))];
  return out;
}

/**
 * A value per whole second for the last `seconds` seconds, on an injected clock: counts add up
 * within their second (events/s); levels keep the highest value seen in the second (a queue depth).
 */
export class SecondSeries {
  private readonly values: number[];
  /** The second (floor(ms / 1000)) of each slot's value. */
  private readonly at: number[];

  constructor(
    private readonly kind: 'count' | 'level',
    readonly seconds = 60,
  ) {
    this.values = new Array<number>(seconds).fill(0);
    this.at = new Array<number>(seconds).fill(-1);
  }

  record(nowMs: number, value: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = second % this.seconds;
    if (this.at[slot] !== second) {
      // A level carries over into seconds nobody reported in; see series().
      this.at[slot] = second;
      this.values[slot] = value;
      return;
    }
    this.values[slot] = this.kind === 'count' ? this.values[slot] + value : Math.max(this.values[slot], value);
  }

  /** Oldest first, ending with the current second. A level repeats its last value through silent seconds. */
  series(nowMs: number): number[] {
    const now = Math.floor(nowMs / 1000);
    const out: number[] = [];
    let last = 0;
    // A level reported before the window still holds at its start.
    if (this.kind === 'level') {
      let newest = -1;
      for (let i = 0; i < this.seconds; i++) if (this.at[i] >= 0 && this.at[i] <= now - this.seconds && this.at[i] > newest) newest = this.at[i];
      if (newest >= 0) last = this.values[newest % this.seconds];
    }
    for (let s = now - this.seconds + 1; s <= now; s++) {
      const slot = ((s % this.seconds) + this.seconds) % this.seconds;
      if (this.at[slot] === s) last = this.values[slot];
      else if (this.kind === 'count') last = 0;
      out.push(last);
    }
    return out;
  }
}
