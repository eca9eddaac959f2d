import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes, formatClock, formatMs, formatSeconds, groupDigits } from '../../src/render/format-units.js';

describe('format units', () => {
  it('formats bytes in compact SI units', () => {
    expect([0, 999, 1000, 7_100_000, 1_234_567_890, 512_000_000].map(formatBytes)).toEqual(['0B', '999B', '1kB', '7.1MB', '1.2GB', '512MB']);
  });

  it('formats ages like kubectl', () => {
    const s = 1000;
    const m = 60 * s;
    const h = 60 * m;
    const d = 24 * h;
    expect([45 * s, 119 * s, 5 * m + 3 * s, 12 * m, 3 * h + 20 * m, 20 * h, 2 * d + 4 * h, 9 * d, 800 * d, -5 * s].map(formatAge)).toEqual([
      '45s',
      '119s',
      '5m3s',
      '12m',
      '3h20m',
      '20h',
      '2d4h',
      '9d',
      '2y70d',
      '<invalid>',
    ]);
  });

  it('formats milliseconds and elapsed seconds', () => {
    expect([0.42, 180, 1234].map(formatMs)).toEqual(['0.4ms', '180ms', '1.2s']);
    expect(formatSeconds(12_345)).toBe('12.3s');
    expect(formatSeconds(3 * 60_000 + 5000)).toBe('3m5s');
  });

  it('formats clock time as HH:MM:SS.mmm', () => {
    expect(formatClock(new Date(2026, 0, 2, 3, 4, 5, 6).getTime())).toBe('03:04:05.006');
  });

  it('groups digits by thousands as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 6000, 20_000, 123_456, 1_234_567, -1000, 1.5]) expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
  });
});
