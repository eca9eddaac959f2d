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

  it('describes a fault as it can be given again', () => {
    for (const s of ['expire@12', 'drop-connection@5000ms', 'delay:100ms@7', 'hide-delete:a/b', 'error@2']) expect(describeInject(parseInjectSpec(s))).toBe(s);
  });
});
