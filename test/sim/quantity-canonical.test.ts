// What kube-apiserver stores for a resource.Quantity (quantity.go: ParseQuantity, then MarshalJSON): cases from kube's
// quantity_test.go tables (parse, emit, canonical strings kept as sent) written as input → stored string.
import { describe, expect, it } from 'vitest';
import { canonicalQuantity, QUANTITY_FORMAT_ERROR, QUANTITY_NUMERIC_ERROR, QUANTITY_SUFFIX_ERROR } from '../../src/sim/kinds/quantity-canonical.js';
import { parseQuantity } from '../../src/sim/kinds/quantity.js';

const stored = (s: string | number) => { const q = canonicalQuantity(s); return 'value' in q ? q.value : `error: ${q.error}`; };

describe('canonicalQuantity', () => {
  it.each([
    // decimal SI: trailing zeros folded into the largest suffix, the exponent a multiple of 3
    ['1000m', '1'], ['0.5', '500m'], ['1000', '1k'], ['1.5', '1500m'], ['10000m', '10'], ['1000M', '1G'], ['12000k', '12M'],
    ['0.0005k', '500m'], ['0.00050k', '500m'], ['0.50000', '500m'], ['.001', '1m'],
    ['8.1k', '8100'], ['2.5P', '2500T'], ['1.01E', '1010P'],
    // rounded away from zero to a nano
    ['0.0001', '100u'], ['3.001n', '4n'], ['0.0000000001', '1n'], ['0.00000012345', '124n'], ['0.9n', '1n'], ['1000n', '1u'], ['1000000n', '1m'],
    ['1e-1000000000', '1e-9'], ['-15e-2000000000', '-1e-9'], ['0e-2000000000', '0'], ['123e-11', '2e-9'], ['1000e-12', '1e-9'],
    // binary SI: the largest exact binary suffix; below 1024 or fractional, decimal
    ['1.5Gi', '1536Mi'], ['1024Mi', '1Gi'], ['2048Ki', '2Mi'], ['1.5Ki', '1536'], ['0.5Ki', '512'], ['.001Ki', '1024m'],
    ['.000000000001Ki', '2n'], ['9Ei', '9223372036854775807'], ['0.5Mi', '512Ki'],
    // decimal exponent
    ['1e3', '1e3'], ['1.2e3', '1200'], ['1.3E+6', '1300e3'], ['0.5e-2', '5e-3'], ['1.1E-9', '2e-9'], ['1000E', '1e21'],
    // strings ParseQuantity finds canonical are kept as sent (its `s`), signs and capital E included
    ['100m', '100m'], ['1Ki', '1Ki'], ['1200k', '1200k'], ['+1', '+1'], ['1E3', '1E3'], ['129M', '129M'],
    ['100.035k', '100.035k'], ['10.035M', '10.035M'], ['5.444T', '5.444T'], ['1.', '1.'], ['1.G', '1.G'],
    // zero, negatives, numbers, spaces
    ['0', '0'], ['0Mi', '0'], ['0.0', '0'], ['-1000m', '-1'], ['-0.5Gi', '-512Mi'], [1, '1'], [0.5, '500m'], [1000, '1k'], [' 100m ', '100m'],
  ] as [string | number, string][])('%j is stored as %j', (input, out) => {
    expect(stored(input)).toBe(out);
  });

  it.each(['1.1.M', '1+1.0M', 'aoeu', '0.1am', '', '{'])('%j: quantities must match the regular expression', (input) => {
    expect(stored(input)).toBe(`error: ${QUANTITY_FORMAT_ERROR}`);
  });

  it.each(['0.1mi', '-3.01e-', '.5i', '1i', '1.5ki', '1e99999999999999999999', '1E-9223372036854775809'])('%j: the suffix does not parse', (input) => {
    expect(stored(input)).toBe(`error: ${QUANTITY_SUFFIX_ERROR}`);
  });

  // Past a nano, ParseQuantity reads the number's text with inf.Dec's SetString, which wants a digit (ErrNumeric,
  // "unable to parse numeric part of quantity"); without the nano path such a number is 0.
  it.each(['e-10', '-e-10', '.e-10', '+.e-12'])('%j: the numeric part does not parse', (input) => {
    expect(stored(input)).toBe('error: unable to parse numeric part of quantity');
    expect(QUANTITY_NUMERIC_ERROR).toBe('unable to parse numeric part of quantity');
  });

  it.each([['e5', '0'], ['.e-9', '0'], ['-', '0'], ['0e-10', '0']])('%j has no digits but is read as %j', (input, out) => {
    expect(stored(input)).toBe(out);
  });

  // interpret reads an exponent with strconv.ParseInt and keeps it as an int32: past int32 it wraps.
  it.each([['1e4294967296', '1e4294967296'], ['1e4294967297', '10'], ['2e-4294967294', '200'], ['1e9223372036854775807', '100e-3']])('%j (its exponent wrapped to an int32) is stored as %j', (input, out) => {
    expect(stored(input)).toBe(out);
  });
});

// The quota sums (quantity.ts) read a quantity as ParseQuantity does, through the same parse (cases from kube's
// quantity_test.go as above): what admission and the quota controller count for a request or a limit in milli-units.
describe('parseQuantity (quota sums) reads quantities as kube does', () => {
  const milli = (s: string) => parseQuantity(s)?.milli;
  it.each([['e5', 0n], ['.', 0n], ['-', 0n], ['.e-9', 0n], ['1.', 1000n], ['+1', 1000n], ['1.G', 1_000_000_000_000n], ['100.035k', 100_035_000n], ['-1000m', -1000n], ['3.001n', 1n], ['-0.5Gi', -536_870_912_000n]] as [string, bigint][])('%j is %d milli-units', (input, want) => {
    expect(milli(input)).toBe(want);
  });

  it('exponents wrap to an int32 as kube reads them, even in a string kube keeps as sent', () => {
    expect(canonicalQuantity('1e4294967296')).toEqual({ value: '1e4294967296' });
    expect(milli('1e4294967296')).toBe(1000n);
    expect(milli('1e4294967297')).toBe(10_000n);
  });

  it('a binary quantity past int64 is capped as kube caps it', () => {
    expect(milli('9Ei')).toBe(9_223_372_036_854_775_807_000n);
    expect(parseQuantity('1Ki')?.binary).toBe(true);
  });

  it.each(['1e', '1K', 'e-10', '', '1.1.M', '1e99999999999999999999'])('%j is no quantity', (input) => {
    expect(parseQuantity(input)).toBeUndefined();
  });
});
