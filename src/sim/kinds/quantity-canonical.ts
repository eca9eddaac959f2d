// A resource.Quantity as kube-apiserver writes it back: its decoder parses every Quantity field
// (k8s.io/apimachinery/pkg/api/resource/quantity.go: ParseQuantity) and its encoder prints the parsed value
// (MarshalJSON): the string as sent when ParseQuantity kept it (its "already canonical" fast path), else the canonical
// form (CanonicalizeBytes). So `1000m` reads back `1`, `0.5` → `500m`, `1.5Gi` → `1536Mi`, `0.0001` → `100u`.

/** kube's errors for a string that is no quantity (quantity.go: ErrFormatWrong, ErrSuffix, ErrNumeric). */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]));
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const SUFFIX_LETTERS = 'eEinumkKMGTP';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const MAX_INT64 = (1n << 63n) - 1n;
/** maxInt64Factors: the digits an int64 always holds. */
const INT64_DIGITS = 18;

export type CanonicalQuantity = { value: string } | { error: string };

/** The parts parseQuantityString splits a quantity into (sign, digits before and after the point, suffix, number text). */
interface QuantityParts { negative: boolean; whole: string; fraction: string; suffix: string; numberText: string }

/** quantity.go's parseQuantityString, scanned the same way: leading zeros of the whole part are not kept. */
function splitQuantity(s: string): QuantityParts | undefined {
  let pos = 0;
  let negative = false;
  if (s[0] === '-') { negative = true; pos++; } else if (s[0] === '+') pos++;
  while (pos < s.length && s[pos] === '0') pos++;
  if (pos >= s.length) return { negative, whole: '0', fraction: '', suffix: '', numberText: '0' };
  let i = pos;
  while (isDigit(s[i])) i++;
  const whole = s.slice(pos, i) || '0'; // ".5", "0.5" and "0Mi" have the whole part 0
  let fraction = '';
  if (s[i] === '.') {
    const start = ++i;
    while (isDigit(s[i])) i++;
    fraction = s.slice(start, i);
  }
  const numberText = s.slice(0, i);
  const suffixStart = i;
  while (i < s.length && SUFFIX_LETTERS.includes(s[i])) i++;
  if (s[i] === '-' || s[i] === '+') i++;
  while (isDigit(s[i])) i++;
  if (i < s.length) return undefined;
  return { negative, whole, fraction, suffix: s.slice(suffixStart), numberText };
}

/** quantity.go's suffixer: the base, exponent and format a suffix stands for. */
function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: Format } | undefined {
  if (suffix in DECIMAL_SUFFIX) return { base: 10, exponent: DECIMAL_SUFFIX[suffix], format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIX) return { base: 2, exponent: BINARY_SUFFIX[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    // strconv.ParseInt(…, 10, 64), then int32(parsed): an exponent past int64 is no suffix, one past int32 wraps. (As a
    // float, "e99999999999999999999" made an exponent that e-- could not move: canonicalForm never returned.)
    const parsed = BigInt(suffix.slice(1));
    if (parsed > MAX_INT64 || parsed < -MAX_INT64 - 1n) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** What kube stores for the quantity `input` (a JSON string or number), or the decoder's error for it. */
export function canonicalQuantity(input: string | number): CanonicalQuantity {
  const s = typeof input === 'number' ? String(input) : input.trim(); // UnmarshalJSON trims a string's spaces
  if (s === '') return { error: QUANTITY_FORMAT_ERROR };
  if (s === '0') return { value: '0' };
  const parts = splitQuantity(s);
  if (!parts) return { error: QUANTITY_FORMAT_ERROR };
  const unit = interpretSuffix(parts.suffix);
  if (!unit) return { error: QUANTITY_SUFFIX_ERROR };
  const { negative, whole, fraction } = parts;
  const digits = whole + fraction;

  // ParseQuantity's int64 path: a string it finds canonical already is kept as sent (its `s`), signs and all.
  const amount = int64Amount(parts, unit);
  if (amount) return { value: amount.kept ? s : canonicalForm(amount.value, amount.scale, unit.format) };

  // The inf.Dec path: exact, then rounded away from zero to a nano, binary capped at the int64 maximum. It reads the
  // number's own text (inf.Dec SetString), which needs a digit: "e-10", "-.e-10" are ErrNumeric, though "e5" is 0.
  if (!/[0-9]/.test(parts.numberText)) return { error: QUANTITY_NUMERIC_ERROR };
  let unscaled = BigInt(digits);
  let exp = -fraction.length;
  if (unit.base === 10) exp += unit.exponent;
  else unscaled <<= BigInt(unit.exponent);
  let format = unit.format;
  if (exp < -9) {
    // Past its own digits the division is a fraction of one, which rounds up to 1n: "1e-1000000000" would otherwise
    // build 10^999999991, seconds of the sim's one thread.
    const places = -9 - exp;
    unscaled = unscaled === 0n ? 0n : unscaled.toString().length <= places ? 1n : (unscaled + pow10(places) - 1n) / pow10(places);
    exp = -9;
  }
  if (format === 'BinarySI') {
    if (compareScaled(unscaled, exp, MAX_INT64) > 0) {
      unscaled = MAX_INT64;
      exp = 0;
    }
    if (unscaled !== 0n && compareScaled(unscaled, exp, 1n) < 0) format = 'DecimalSI';
  }
  return { value: canonicalForm(negative ? -unscaled : unscaled, exp, format) };
}

/** What ParseQuantity's int64 path makes of a quantity: its int64Amount (signed value, scale) and whether it keeps the string as sent. */
interface Int64Amount { value: bigint; scale: number; kept: boolean }

/** ParseQuantity's int64 path (precision and scale permitting, no overflow); undefined where it takes the inf.Dec path. */
function int64Amount({ negative, whole, fraction }: QuantityParts, unit: { exponent: number; format: Format }): Int64Amount | undefined {
  const digits = whole + fraction;
  const precision = unit.format !== 'BinarySI' ? INT64_DIGITS - digits.length
    : unit.exponent >= 0 && fraction === '' ? 15 - whole.length - Math.trunc(unit.exponent * 3 / 10) - 1 : -1;
  const scale = unit.format === 'BinarySI' ? 0 : unit.exponent - fraction.length;
  if (precision < 0 || scale < -9) return undefined;
  const value = BigInt(digits);
  const magnitude = unit.format === 'BinarySI' ? value << BigInt(unit.exponent) : value;
  if (magnitude > MAX_INT64) return undefined;
  const kept = unit.format === 'BinarySI' ? (value & 7n) !== 0n : scale % 3 === 0 && !digits.endsWith('000') && digits[0] !== '0';
  return { value: negative ? -magnitude : magnitude, scale, kept };
}

/**
 * The resource.Quantity ParseQuantity returns for a string, as far as a field error prints it (%#v): its int64Amount
 * (undefined where the value is an inf.Dec), its format, and `s`, the string kept when it was canonical already.
 * Undefined for a string that is no quantity.
 */
export function parsedQuantity(input: string): { amount?: { value: bigint; scale: number }; format: Format; s: string } | undefined {
  const s = input.trim();
  if (s === '0') return { amount: { value: 0n, scale: 0 }, format: 'DecimalSI', s };
  const parts = s === '' ? undefined : splitQuantity(s);
  const unit = parts && interpretSuffix(parts.suffix);
  if (!parts || !unit) return undefined;
  const amount = int64Amount(parts, unit);
  return amount ? { amount: { value: amount.value, scale: amount.scale }, format: unit.format, s: amount.kept ? s : '' } : { format: unit.format, s: '' };
}

/** Compares unscaled×10^exp (non-negative) with an integer. */
function compareScaled(unscaled: bigint, exp: number, n: bigint): number {
  const [a, b] = exp >= 0 ? [unscaled * pow10(exp), n] : [unscaled, n * pow10(-exp)];
  return a < b ? -1 : a > b ? 1 : 0;
}

/** CanonicalizeBytes of unscaled×10^exp in `format`. */
function canonicalForm(unscaled: bigint, exp: number, format: Format): string {
  if (unscaled === 0n) return '0';
  if (format === 'BinarySI') {
    const abs = unscaled < 0n ? -unscaled : unscaled;
    // Between -1024 and 1024, or not a whole number, a binary quantity prints as decimal.
    const whole = exp >= 0 ? unscaled * pow10(exp) : unscaled % pow10(-exp) === 0n ? unscaled / pow10(-exp) : undefined;
    if (compareScaled(abs, exp, 1024n) >= 0 && whole !== undefined) {
      let m = whole;
      let power = 0;
      for (; m % 1024n === 0n && power < BINARY_BY_POWER.length - 1; power++) m /= 1024n;
      return `${m}${BINARY_BY_POWER[power]}`;
    }
    format = 'DecimalSI';
  }
  let m = unscaled;
  let e = exp;
  for (; m % 10n === 0n; e++) m /= 10n;
  for (; e % 3 !== 0; e--) m *= 10n;
  if (format === 'DecimalSI') {
    const suffix = DECIMAL_BY_EXPONENT.get(e);
    if (suffix !== undefined) return `${m}${suffix}`;
  }
  return e === 0 ? `${m}` : `${m}e${e}`;
}
