// resource.Quantity in small, for quota sums: parse "100m", "0.5", "128Mi", "1G", "2e3" into an exact count of
// milli-units, and print a sum back in the format of its inputs (binary suffixes stay binary, cpu stays milli).
import { boundedMemo } from '../bounded-memo.js';
import { canonicalQuantity, parsedQuantity } from './quantity-canonical.js';

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export interface Quantity { milli: bigint; binary: boolean }

/**
 * Parsed quantity strings: quota counts read the same few strings ("100m", "128Mi") on every write, and the parse
 * (a regex and BigInt arithmetic) was most of what counting a pod cost. Bounded: cleared when full.
 */
const parsed = boundedMemo(4096, (s): Quantity | undefined => {
  const q = parseFresh(s);
  return q && Object.freeze(q);
});

/**
 * Milli-units of a quantity string (rounded up, as kube rounds sub-milli values), or undefined when it does not parse.
 * The result is shared (frozen): never change it, make a new one.
 */
export function parseQuantity(s: unknown): Quantity | undefined {
  if (typeof s === 'number') s = String(s);
  if (typeof s !== 'string') return undefined;
  return parsed(s);
}

/**
 * The largest power of ten a quota sum is built with. kube's inf.Dec holds `1e300000000` exactly; building that BigInt
 * froze the sim for seconds on one pod's request. Past 10^1000 every value is taken as 10^1000 times its digits, so
 * only two quantities both beyond it (a limit and a request no cluster states) compare differently from kube.
 */
const MAX_EXPONENT = 1000;

/** ⌈digits / 10^places⌉ for digits ≥ 0: 1 (or 0) at once when the cut is longer than the number. */
function roundUpShifted(digits: bigint, places: number): bigint {
  if (places > digits.toString().length) return digits === 0n ? 0n : 1n;
  const f = 10n ** BigInt(places);
  return (digits + f - 1n) / f;
}

/**
 * Reads a string as kube's ParseQuantity reads it (quantity-canonical.ts): its int64Amount where it takes that path
 * (the exponent of an `e` suffix wrapped to an int32, as kube's), else the form kube stores it in. So "e5", "." and
 * "-" are 0, "1e" and "1K" no quantity, "9Ei" capped at the int64 maximum.
 */
function parseFresh(s: string): Quantity | undefined {
  const parsed = parsedQuantity(s);
  if (!parsed) return undefined;
  if (parsed.amount) {
    const { value, scale } = parsed.amount;
    const exp = scale + 3; // milli
    const magnitude = value < 0n ? -value : value;
    const milli = exp >= 0 ? magnitude * 10n ** BigInt(Math.min(exp, MAX_EXPONENT)) : roundUpShifted(magnitude, -exp);
    return { milli: value < 0n ? -milli : milli, binary: parsed.format === 'BinarySI' };
  }
  // The inf.Dec path: read its stored form, exact to a nano (every canonical form matches this pattern).
  const stored = canonicalQuantity(s);
  if ('error' in stored) return undefined;
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(stored.value);
  if (!m) return undefined;
  const [, sign, num, suffix = ''] = m;
  const [whole, frac = ''] = num.split('.');
  let digits = BigInt((whole || '0') + frac);
  let exp = -frac.length + 3; // milli
  if (BINARY[suffix]) digits *= BINARY[suffix];
  else if (/^[eE]/.test(suffix)) exp += Number(suffix.slice(1));
  else exp += DECIMAL[suffix];
  let milli = exp >= 0 ? digits * 10n ** BigInt(Math.min(exp, MAX_EXPONENT)) : roundUpShifted(digits, -exp);
  if (sign === '-') milli = -milli;
  return { milli, binary: suffix in BINARY };
}

/** A sum printed as Quantity.String would print it: binary inputs with the largest exact binary suffix, else decimal. */
export function formatQuantity(q: Quantity): string {
  if (q.milli % 1000n !== 0n) return `${q.milli}m`;
  const units = q.milli / 1000n;
  if (q.binary && units !== 0n) {
    for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) if (units % BINARY[suffix] === 0n) return `${units / BINARY[suffix]}${suffix}`;
  }
  if (units !== 0n) {
    for (const [suffix, e] of [['E', 18], ['P', 15], ['T', 12], ['G', 9], ['M', 6], ['k', 3]] as const) {
      const f = 10n ** BigInt(e);
      if (units % f === 0n) return `${units / f}${suffix}`;
    }
  }
  return String(units);
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { milli: a.milli + b.milli, binary: a.binary || (a.milli === 0n && b.binary) };
}

export const ZERO: Quantity = { milli: 0n, binary: false };
