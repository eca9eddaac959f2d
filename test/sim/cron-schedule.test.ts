// The cron parser and next-time search the CronJob controller and validation share (robfig/cron v3 semantics).
import { describe, expect, it } from 'vitest';
import { CronSyntaxError, parseSchedule, Zone } from '../../src/sim/cron-schedule.js';

const at = (iso: string): number => Date.parse(iso);
const next = (schedule: string, after: string, tz?: string): string | undefined => {
  const t = parseSchedule(schedule, tz).next(at(after));
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe('cron schedules', () => {
  it('steps, ranges, lists, names and descriptors', () => {
    expect(next('*/15 * * * *', '2026-01-01T10:07:12Z')).toBe('2026-01-01T10:15:00.000Z');
    expect(next('0 9-17/4 * * MON-FRI', '2026-01-02T13:00:00Z')).toBe('2026-01-02T17:00:00.000Z'); // a Friday
    expect(next('0 9-17/4 * * MON-FRI', '2026-01-02T17:00:00Z')).toBe('2026-01-05T09:00:00.000Z'); // then Monday
    expect(next('30 6 1,15 JAN,jul *', '2026-01-15T06:30:00Z')).toBe('2026-07-01T06:30:00.000Z');
    expect(next('@hourly', '2026-01-01T10:00:00Z')).toBe('2026-01-01T11:00:00.000Z');
    expect(next('@yearly', '2026-03-01T00:00:00Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('@every 90s', '2026-01-01T10:00:00.500Z')).toBe('2026-01-01T10:01:30.000Z');
  });

  it('day of month and day of week: either matches when both are restricted, both must when one is a star', () => {
    // 13th or a Friday: Friday 2026-01-02 comes first.
    expect(next('0 0 13 * 5', '2026-01-01T00:00:00Z')).toBe('2026-01-02T00:00:00.000Z');
    // Every 13th (day of week *): 2026-01-13.
    expect(next('0 0 13 * *', '2026-01-01T00:00:00Z')).toBe('2026-01-13T00:00:00.000Z');
    // February 30th never comes.
    expect(next('0 0 30 2 *', '2026-01-01T00:00:00Z')).toBeUndefined();
  });

  it('runs in a time zone, across its daylight saving changes', () => {
    expect(next('0 9 * * *', '2026-06-01T00:00:00Z', 'Europe/Berlin')).toBe('2026-06-01T07:00:00.000Z');
    expect(next('0 9 * * *', '2026-01-01T00:00:00Z', 'Europe/Berlin')).toBe('2026-01-01T08:00:00.000Z');
    // 02:30 does not exist in Berlin on 2026-03-29: the next 02:30 is the day after.
    expect(next('30 2 * * *', '2026-03-28T12:00:00Z', 'Europe/Berlin')).toBe('2026-03-30T00:30:00.000Z');
    expect(new Zone('Asia/Kolkata').rfc3339(at('2026-01-01T04:30:00Z'))).toBe('2026-01-01T10:00:00+05:30');
    expect(new Zone(undefined).rfc3339(at('2026-01-01T04:30:00Z'))).toBe('2026-01-01T04:30:00Z');
  });

  it("rejects what cron.ParseStandard rejects, in the parser's words", () => {
    const error = (s: string): string => { try { parseSchedule(s); return 'parsed'; } catch (err) { expect(err).toBeInstanceOf(CronSyntaxError); return (err as Error).message; } };
    expect(error('')).toBe('empty spec string');
    expect(error('* * * *')).toBe('expected exactly 5 fields, found 4: [* * * *]');
    expect(error('60 * * * *')).toBe('end of range (60) above maximum (59): 60');
    expect(error('* * 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(error('5-1 * * * *')).toBe('beginning of range (5) beyond end of range (1): 5-1');
    expect(error('x * * * *')).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(error('* * * * 7')).toBe('end of range (7) above maximum (6): 7');
    expect(error('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(error('@fortnightly')).toBe('unrecognized descriptor: @fortnightly');
    expect(error('TZ=Nowhere/Land * * * * *')).toBe('provided bad location Nowhere/Land: unknown time zone Nowhere/Land');
  });
});
