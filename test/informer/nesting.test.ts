// The nesting bound: every walk over server data stops at MAX_NESTING_DEPTH with NestingTooDeepError (one object
// fails), not with a stack overflow that kills the process.
import { describe, expect, it } from 'vitest';
import { compileJsonPath } from '../../src/informer/jsonpath.js';
import { cutNestingBelow, MAX_NESTING_DEPTH, NestingTooDeepError, nestsDeeperThan, stringifyBounded } from '../../src/informer/nesting.js';
import { diffObjects } from '../../src/informer/object-diff.js';
import { maskSecrets } from '../../src/render/secrets.js';

/** `{x:{x:…leaf…}}`, `depth` objects deep, built without recursion. */
function nested(depth: number, leaf: unknown = 'leaf'): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { x: v };
  return v as Record<string, unknown>;
}

describe('objects nested 10,000 deep (kube-apiserver accepts that many)', () => {
  const deep = nested(10_000);

  it('nestsDeeperThan tells, at the bound exactly', () => {
    expect(nestsDeeperThan(deep)).toBe(true);
    expect(nestsDeeperThan(nested(MAX_NESTING_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_NESTING_DEPTH + 1))).toBe(true);
  });

  it('masking, revealed or not, and diffing fail with NestingTooDeepError', () => {
    expect(() => maskSecrets(deep)).toThrow(NestingTooDeepError);
    expect(() => maskSecrets(deep, { reveal: true })).toThrow(NestingTooDeepError);
    expect(() => diffObjects(deep, nested(10_000, 'other'))).toThrow(NestingTooDeepError);
    expect(() => stringifyBounded(deep)).toThrow(NestingTooDeepError);
    // An object at the bound passes untouched.
    const atBound = nested(MAX_NESTING_DEPTH - 1);
    expect(maskSecrets(atBound)).toBe(atBound);
  });

  it('JSONPath recursive descent walks it without recursion, in document order', () => {
    expect(compileJsonPath('{..x}')(deep)).toHaveLength(10_000);
    expect(compileJsonPath('{..name}')({ a: [{ name: 1, b: { name: 2 } }, { name: 3 }], name: 0 })).toEqual([0, 1, 2, 3]);
  });

  it('cutNestingBelow keeps the top and replaces what lies below the bound by a marker, so it can be written', () => {
    const cut = cutNestingBelow({ keep: 'me', deep }, MAX_NESTING_DEPTH, 'CUT') as Record<string, unknown>;
    expect(cut.keep).toBe('me');
    expect(nestsDeeperThan(cut)).toBe(false);
    const text = JSON.stringify(cut);
    expect(text).toContain('"CUT"');
    expect(text.split('{"x":').length - 1).toBe(MAX_NESTING_DEPTH - 1);
    expect(deep.x).toBeTypeOf('object'); // the input is not changed
  });
});
