// The duplicate-key scan behind fieldValidation's `duplicate field "…"`: paths as kube spells them, strings skipped.
import { describe, expect, it } from 'vitest';
import { duplicateFields } from '../../src/sim/json-duplicate-fields.js';

describe('duplicateFields', () => {
  it('reports each repeated key with its path, inside nested objects and list items', () => {
    expect(duplicateFields('{"spec":{"replicas":1,"replicas":2}}')).toEqual(['spec.replicas']);
    expect(duplicateFields('{"a":1,"b":{"x":[{"y":1,"y":2}],"x":"s"},"a":3}')).toEqual(['b.x[0].y', 'b.x', 'a']);
  });

  it('is not fooled by braces, commas or escaped quotes inside strings, nor by equal keys in sibling objects', () => {
    expect(duplicateFields('{"c":"}{[,\\"","d":{"k":1},"e":{"k":1}}')).toEqual([]);
    expect(duplicateFields('[{"k":1},{"k":1}]')).toEqual([]);
    // Keys compare decoded: "a\u0061" is "aa".
    expect(duplicateFields('{"aa":1,"a\\u0061":2}')).toEqual(['aa']);
  });
});
