// Human units for trace output: byte sizes, kubectl-style ages, milliseconds and elapsed seconds.

const BYTE_UNITS = ['kB', 'MB', 'GB', 'TB'];

/** Decimal (SI) byte size, compact: 512B, 7.1kB, 1.2MB. Negative or non-finite input prints as-is. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return String(n);
  if (n < 1000) return `${Math.round(n)}B`;
  let v = n;
  let unit = 'B';
  for (const u of BYTE_UNITS) {
    if (v < 1000) break;
    v /= 1000;
    unit = u;
  }
  // 1 decimal below 100 (7.1MB), none above (512MB), so widths stay short.
  return `${v < 100 ? trimZero(v.toFixed(1)) : Math.round(v)}${unit}`;
}

/**
 * A duration as kubectl prints AGE (apimachinery's HumanDuration): 45s, 5m3s, 12m, 3h20m, 2d4h, 9d, 2y31d.
 * Input in milliseconds.
 */
export function formatAge(ms: number): string {
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
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24);
    const dy = days % 365;
    const y = Math.trunc(days / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Milliseconds for latency columns: 0.4ms, 180ms, 1.2s, 75s. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 10) return `${trimZero(ms.toFixed(1))}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return formatSeconds(ms);
}

/** Elapsed time with one decimal: 12.3s, 95.0s → 1m35s once past two minutes (kubectl age style). */
export function formatSeconds(ms: number): string {
  if (ms < 120_000) return `${trimZero((ms / 1000).toFixed(1))}s`;
  return formatAge(ms);
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** Local wall-clock time as HH:MM:SS.mmm (the TIME column). */
export function formatClock(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/**
 * 20000 → "20,000", as toLocaleString('en-US') writes an integer. Not toLocaleString itself: its first call loads
 * ICU's number formatting, 20 ms of a short run on Node 20 (issue 29).
 */
export function groupDigits(n: number): string {
  if (!Number.isInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) out = digits.slice(Math.max(0, end - 3), end) + (out ? `,${out}` : '');
  return n < 0 ? `-${out}` : out;
}
