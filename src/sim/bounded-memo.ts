// A per-string memo for the sim's write paths, which ask the same few questions again and again (a quantity "100m", a
// quota name "requests.cpu"): answers are kept until `max` are held, then all are forgotten at once, so a client that
// sends ever new strings cannot grow it without bound.

/** `compute` memoized by its string argument, undefined answers included; bounded by `max` entries. */
export function boundedMemo<V>(max: number, compute: (key: string) => V): (key: string) => V {
  const memo = new Map<string, V>();
  return (key) => {
    const hit = memo.get(key);
    if (hit !== undefined || memo.has(key)) return hit as V;
    const value = compute(key);
    if (memo.size >= max) memo.clear();
    memo.set(key, value);
    return value;
  };
}
