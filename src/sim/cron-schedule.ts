// Cron schedules as kube's CronJob controller reads them (robfig/cron v3's ParseStandard): five fields — minute, hour,
// day of month, month (1-12 or JAN-DEC), day of week (0-6 or SUN-SAT) — each a comma list of `*`/`?`, `n`, `a-b`
// with an optional `/step`; the descriptors @yearly @annually @monthly @weekly @daily @midnight @hourly and
// `@every <duration>`; an optional `TZ=`/`CRON_TZ=` prefix; and the time zone a schedule runs in (kube's timeZone).
// Errors carry the parser's own wording, which kube shows in validation errors and events.

/** One parsed schedule: `next(t)` is the first activation strictly after epoch-ms `t`, or undefined for none in 5 years. */
export interface CronSchedule {
  next(after: number): number | undefined;
}

export class CronSyntaxError extends Error {}

interface Bounds { min: number; max: number; names?: Record<string, number> }

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

/** A field's allowed values, and whether it was written as `*`/`?` (robfig's star bit: it decides how dom and dow combine). */
interface Field { values: Set<number>; star: boolean }

/** Go's strconv.Atoi as robfig uses it: an optional sign and decimal digits. */
function atoi(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new CronSyntaxError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new CronSyntaxError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function intOrName(expr: string, b: Bounds): number {
  const named = b.names?.[expr.toLowerCase()];
  return named ?? atoi(expr);
}

function parseField(text: string, b: Bounds): Field {
  const field: Field = { values: new Set(), star: false };
  for (const expr of text.split(',').filter((e) => e !== '')) {
    const rangeAndStep = expr.split('/');
    const lowAndHigh = rangeAndStep[0].split('-');
    let start: number, end: number, step = 1;
    let star = false;
    if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
      start = b.min; end = b.max; star = true;
    } else {
      start = intOrName(lowAndHigh[0], b);
      if (lowAndHigh.length === 1) end = start;
      else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1], b);
      else throw new CronSyntaxError(`too many hyphens: ${expr}`);
    }
    if (rangeAndStep.length === 2) {
      step = atoi(rangeAndStep[1]);
      // "n/step" means "n-max/step".
      if (lowAndHigh.length === 1) end = b.max;
      if (step > 1) star = false;
    } else if (rangeAndStep.length > 2) throw new CronSyntaxError(`too many slashes: ${expr}`);
    if (start < b.min) throw new CronSyntaxError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
    if (end > b.max) throw new CronSyntaxError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
    if (start > end) throw new CronSyntaxError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
    if (step === 0) throw new CronSyntaxError(`step of range should be a positive number: ${expr}`);
    for (let v = start; v <= end; v += step) field.values.add(v);
    field.star ||= star;
  }
  return field;
}

/** Go's time.ParseDuration, in milliseconds (ns/us/µs/ms/s/m/h units, fractions, several terms). */
function parseDuration(text: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!m && text !== '0') throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
  if (text === '0') return 0;
  let total = 0;
  for (const [, num, unit] of text.replace(/^[+-]/, '').matchAll(/((?:\d+(?:\.\d*)?|\.\d+))(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(num) * units[unit];
  return m![1] === '-' ? -total : total;
}

/** The wall-clock fields of an instant in a time zone (UTC when none). */
export class Zone {
  private readonly format: Intl.DateTimeFormat | undefined;

  /** Throws a RangeError for a zone name the runtime's time zone database does not know. */
  constructor(readonly name: string | undefined) {
    this.format = name === undefined || name === 'UTC' ? undefined
      : new Intl.DateTimeFormat('en-US', { timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  }

  /** The wall time of `instant` in this zone, as epoch ms of the same fields read as UTC. */
  wall(instant: number): number {
    if (!this.format) return instant;
    const parts: Record<string, number> = {};
    for (const p of this.format.formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const wholeSecond = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
    return wholeSecond + (((instant % 1000) + 1000) % 1000);
  }

  /** The zone's offset from UTC at `instant`, in ms. */
  offset(instant: number): number {
    return this.wall(instant) - instant;
  }

  /**
   * The instant a wall time names: the earlier one when the wall time happens twice (clocks turned back), undefined
   * when it never happens (clocks turned forward over it).
   */
  instant(wall: number): number | undefined {
    const candidates = new Set([wall - this.offset(wall - 86_400_000), wall - this.offset(wall + 86_400_000), wall - this.offset(wall)]);
    const hits = [...candidates].filter((t) => this.wall(t) === wall).sort((a, b) => a - b);
    return hits[0];
  }

  /** RFC 3339 with this zone's offset, as Go's time.Format(time.RFC3339) writes it ("Z" for UTC). */
  rfc3339(instant: number): string {
    const wall = new Date(this.wall(instant)).toISOString().slice(0, 19);
    const offset = Math.round(this.offset(instant) / 60_000);
    if (offset === 0) return `${wall}Z`;
    const abs = Math.abs(offset);
    return `${wall}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  }
}

/** Five fields matched in wall-clock time of a zone. */
class SpecSchedule implements CronSchedule {
  constructor(private readonly minute: Field, private readonly hour: Field, private readonly dom: Field, private readonly month: Field, private readonly dow: Field, private readonly zone: Zone) {}

  /** robfig's dayMatches: with either day field a star both must match, otherwise either may. */
  private dayMatches(d: Date): boolean {
    const domMatch = this.dom.values.has(d.getUTCDate());
    const dowMatch = this.dow.values.has(d.getUTCDay());
    return this.dom.star || this.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  }

  next(after: number): number | undefined {
    // Activations fall on whole minutes of wall time; the search walks wall time, skipping whole months, days and
    // hours that cannot match, for at most five years.
    let wall = Math.floor(this.zone.wall(after) / 60_000) * 60_000 + 60_000;
    const limit = wall + 5 * 366 * 86_400_000;
    while (wall <= limit) {
      const d = new Date(wall);
      if (!this.month.values.has(d.getUTCMonth() + 1)) { wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1); continue; }
      if (!this.dayMatches(d)) { wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1); continue; }
      if (!this.hour.values.has(d.getUTCHours())) { wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1); continue; }
      if (!this.minute.values.has(d.getUTCMinutes())) { wall += 60_000; continue; }
      const instant = this.zone.instant(wall);
      // A wall time the zone skips, or one that (clocks turned back) lies before `after`, is passed over.
      if (instant !== undefined && instant > after) return instant;
      wall += 60_000;
    }
    return undefined;
  }
}

/** @every <duration>: a constant delay, at least a second, in whole seconds (robfig's ConstantDelaySchedule). */
class EverySchedule implements CronSchedule {
  constructor(private readonly delayMs: number) {}

  next(after: number): number {
    return Math.floor(after / 1000) * 1000 + this.delayMs;
  }
}

/**
 * Parses `schedule` as cron.ParseStandard does, in `timeZone` (a CronJob's spec.timeZone; UTC when undefined, as a
 * kube-controller-manager running in UTC reads it). A TZ=/CRON_TZ= prefix overrides the zone. Throws CronSyntaxError.
 */
export function parseSchedule(schedule: string, timeZone?: string): CronSchedule {
  let spec = schedule.trim();
  if (spec === '') throw new CronSyntaxError('empty spec string');
  let zoneName = timeZone;
  const tz = /^(?:CRON_TZ|TZ)=(\S*)/.exec(spec);
  if (tz) {
    zoneName = tz[1];
    spec = spec.slice(tz[0].length).trim();
  }
  let zone: Zone;
  try {
    zone = new Zone(zoneName);
  } catch {
    throw new CronSyntaxError(`provided bad location ${zoneName}: unknown time zone ${zoneName}`);
  }
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      let ms: number;
      try { ms = parseDuration(spec.slice('@every '.length)); } catch (err) { throw new CronSyntaxError(`failed to parse duration ${spec}: ${(err as Error).message}`); }
      return new EverySchedule(Math.max(1000, Math.floor(ms / 1000) * 1000));
    }
    const expanded = DESCRIPTORS[spec];
    if (!expanded) throw new CronSyntaxError(`unrecognized descriptor: ${spec}`);
    spec = expanded;
  }
  const fields = spec.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) throw new CronSyntaxError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  return new SpecSchedule(parseField(fields[0], MINUTES), parseField(fields[1], HOURS), parseField(fields[2], DOM), parseField(fields[3], MONTHS), parseField(fields[4], DOW), zone);
}
