// Ages print as kube's duration.HumanDuration / translateTimestampSince.
import { describe, expect, it } from 'vitest';
import { humanDuration, translateTimestampSince } from '../../src/sim/table/age.js';

const s = 1000, m = 60 * s, h = 60 * m, d = 24 * h;

describe('age formatting', () => {
  it('shows seconds up to two minutes', () => {
    expect(humanDuration(0)).toBe('0s');
    expect(humanDuration(5 * s + 999)).toBe('5s');
    expect(humanDuration(119 * s)).toBe('119s');
  });

  it('shows minutes and seconds under ten minutes, then whole minutes up to three hours', () => {
    expect(humanDuration(2 * m)).toBe('2m');
    expect(humanDuration(3 * m + 10 * s)).toBe('3m10s');
    expect(humanDuration(10 * m + 59 * s)).toBe('10m');
    expect(humanDuration(179 * m)).toBe('179m');
  });

  it('shows hours and minutes under eight hours, then whole hours under two days', () => {
    expect(humanDuration(3 * h)).toBe('3h');
    expect(humanDuration(5 * h + 3 * m)).toBe('5h3m');
    expect(humanDuration(30 * h + 59 * m)).toBe('30h');
  });

  it('shows days and hours under eight days, then days, then years and days', () => {
    expect(humanDuration(2 * d + 3 * h)).toBe('2d3h');
    expect(humanDuration(2 * d)).toBe('2d');
    expect(humanDuration(300 * d)).toBe('300d');
    expect(humanDuration(2 * 365 * d + 41 * d)).toBe('2y41d');
    expect(humanDuration(10 * 365 * d)).toBe('10y');
  });

  it('tolerates up to two seconds of clock skew, then says <invalid>', () => {
    expect(humanDuration(-1999)).toBe('0s');
    expect(humanDuration(-2 * s)).toBe('<invalid>');
  });

  it('prints <unknown> for an absent timestamp and measures from the given now', () => {
    expect(translateTimestampSince(undefined, Date.now())).toBe('<unknown>');
    expect(translateTimestampSince(null, Date.now())).toBe('<unknown>');
    expect(translateTimestampSince('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:03:10Z'))).toBe('3m10s');
  });
});
