import { describe, expect, it } from 'vitest';
import { describeInject, isWriteFault, parseInjectSpec } from '../../src/faults/inject-spec.js';

describe('parseInjectSpec', () => {
  it('addresses watch faults by resourceVersion or by time since the start', () => {
    expect(parseInjectSpec('expire@4812')).toEqual({ kind: 'expire', at: { rv: '4812' } });
    expect(parseInjectSpec('drop-connection@10s')).toEqual({ kind: 'drop-connection', at: { afterMs: 10_000 } });
    expect(parseInjectSpec('duplicate@1m30s')).toEqual({ kind: 'duplicate', at: { afterMs: 90_000 } });
    expect(parseInjectSpec(' hide-delete:shop/web-0 ')).toEqual({ kind: 'hide-delete', key: 'shop/web-0' });
  });

  it('takes delays with an optional start', () => {
    expect(parseInjectSpec('delay:250ms')).toEqual({ kind: 'delay', ms: 250 });
    expect(parseInjectSpec('delay:2s@5s')).toEqual({ kind: 'delay', ms: 2000, at: { afterMs: 5000 } });
    expect(() => parseInjectSpec('delay:soon')).toThrow(/not a duration/);
  });

  it('addresses write faults by the ordinal of the write', () => {
    const f = parseInjectSpec('conflict@3');
    expect(f).toEqual({ kind: 'conflict', write: 3 });
    expect(isWriteFault(f)).toBe(true);
    expect(isWriteFault(parseInjectSpec('expire@3'))).toBe(false);
    expect(parseInjectSpec('throttle@1')).toEqual({ kind: 'throttle', write: 1 });
    expect(() => parseInjectSpec('error@0')).toThrow(/whole number from 1/);
    expect(() => parseInjectSpec('error@5s')).toThrow(/whole number from 1/);
  });

  it('refuses anything else in one line naming the forms', () => {
    expect(() => parseInjectSpec('explode@1')).toThrow(/^invalid --inject "explode@1": use drop-connection@AT/);
    expect(() => parseInjectSpec('delay:600h')).toThrow(/24 days/);
  });

  it('takes blanks around the parts, and only the whole value as a form (no prefix before it)', () => {
    expect(parseInjectSpec('hide-delete: shop/web-0')).toEqual({ kind: 'hide-delete', key: 'shop/web-0' });
    expect(parseInjectSpec('delay: 2s @ 5s')).toEqual({ kind: 'delay', ms: 2000, at: { afterMs: 5000 } });
    expect(parseInjectSpec('expire@ 4812')).toEqual({ kind: 'expire', at: { rv: '4812' } });
    expect(parseInjectSpec('conflict@ 3')).toEqual({ kind: 'conflict', write: 3 });
    for (const spec of ['xhide-delete:a/b', 'xdelay:2s', '1expire@5']) expect(() => parseInjectSpec(spec)).toThrow(/use drop-connection@AT/);
  });

  it('names what is wrong with a duration or an ordinal', () => {
    // A bare number is seconds to --resync but not a duration here: the unit is required. Caught by hand: vitest's
    // toThrow(message) also passes when `undefined` is thrown (a mutant Stryker found surviving).
    let thrown: unknown;
    try {
      parseInjectSpec('delay:5');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as Error).message).toBe('invalid --inject "delay:5": "5" is not a duration (e.g. 500ms, 2s)');
    expect(parseInjectSpec('conflict@12')).toEqual({ kind: 'conflict', write: 12 });
    for (const spec of ['error@+5', 'error@5.0', 'error@-1']) expect(() => parseInjectSpec(spec)).toThrow(`invalid --inject "${spec}": error@N takes the ordinal of a write, a whole number from 1`);
    // The longest a timer waits is allowed, a millisecond more is not.
    expect(parseInjectSpec('delay:2147483647ms')).toEqual({ kind: 'delay', ms: 2 ** 31 - 1 });
    expect(() => parseInjectSpec('delay:2147483648ms')).toThrow('invalid --inject: 2147483648ms is longer than the 24 days a timer can wait');
  });

  it('describes a fault as it can be given again', () => {
    expect(describeInject(parseInjectSpec('delay:2s@5s'))).toBe('delay:2000ms@5000ms');
    expect(describeInject(parseInjectSpec('delay:2s'))).toBe('delay:2000ms');
    for (const s of ['expire@12', 'drop-connection@5000ms', 'delay:100ms@7', 'hide-delete:a/b', 'error@2']) expect(describeInject(parseInjectSpec(s))).toBe(s);
  });
});
