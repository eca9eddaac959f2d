// Ordering resourceVersions: opaque to clients in general, but etcd revisions (decimal integers) in
// every API server kwatch talks to, so `--from-rv` / `--until-rv` can compare them.

/** True when `rv` is a decimal integer (an etcd revision). */
export function isNumericResourceVersion(rv: string): boolean {
  return /^\d+$/.test(rv);
}

/** Negative, zero or positive as a is older than, equal to or newer than b. Throws for non-numeric versions. */
export function compareResourceVersions(a: string, b: string): number {
  if (!isNumericResourceVersion(a) || !isNumericResourceVersion(b)) {
    const bad = isNumericResourceVersion(a) ? b : a;
    throw new RangeError(`resourceVersion "${bad}" is not a number: kwatch can only order resourceVersions that are etcd revisions`);
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
