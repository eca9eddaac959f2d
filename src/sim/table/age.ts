// Ages as kube prints them: apimachinery's duration.HumanDuration (~2–3 significant figures) behind the printers' translateTimestampSince.

/** duration.HumanDuration: "45s", "3m10s", "25m", "5h3m", "30h", "2d3h", "300d", "2y41d", "10y". */
export function humanDuration(ms: number): string {
  // Go converts with int(): truncation toward zero. Up to 2 s into the future still reads as "0s" (clock skew).
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Milliseconds since the epoch of an RFC 3339 timestamp; undefined for absent/null (Go's zero time) or unparsable values. */
export function parseTimestamp(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The printers' translateTimestampSince: "<unknown>" for a zero (absent) time, else the age. */
export function translateTimestampSince(ts: unknown, now: number): string {
  const ms = parseTimestamp(ts);
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}
