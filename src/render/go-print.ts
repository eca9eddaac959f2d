// Values printed the way kubectl's Go code prints them, for the -o jsonpath / custom-columns / go-template
// outputs that scripts compare byte for byte with kubectl's.
//
// Numbers: kubectl's printers read objects decoded as unstructured, where integers are int64 (printed as
// integers) and other numbers float64 (fmt's %v: %g with exponents from 1e+06 on, or below 1e-4). The
// float64 model prints every number as a float64 (encoding/json's decoding into interface{}).

export type NumberModel = 'int64' | 'float64';

/** fmt.Sprint(v) of a decoded JSON value: maps as `map[k:v]` (keys sorted), slices as `[a b]`, nil as `<nil>`. */
export function goSprint(v: unknown, numbers: NumberModel): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v, numbers);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goSprint(x, numbers)).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${goSprint(o[k], numbers)}`)
      .join(' ')}]`;
  }
  return String(v);
}

export function goNumber(n: number, numbers: NumberModel): string {
  if (numbers === 'int64' && Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER) return String(n);
  return goFloat(n);
}

/** strconv.FormatFloat(f, 'g', -1, 64), which is what %v prints for a float64. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  // Shortest precision: %e when the exponent is < -4 or >= 6 (Go's eprec for the shortest form).
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = f < 0 ? '-' : '';
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}${frac ? `.${frac}` : ''}`;
}

/**
 * json.Marshal of a decoded value (json.MarshalIndent with `indent`): map keys sorted, `<>&` and U+2028/9
 * escaped as \u00XX as Go's encoder does.
 */
export function goJSON(v: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(v), null, indent).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** kubectl's printers.EscapeTerminal, used by its custom-columns cells: ESC as ^[ and CR as \r. */
export function kubectlEscapeTerminal(s: string): string {
  return s.replaceAll('\x1b', '^[').replace(/\r/g, '\\r');
}

/** A copy of a decoded value with every map's keys in sorted order, as Go's encoders write maps. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}
