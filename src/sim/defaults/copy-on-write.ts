// Defaulting runs on every write, most of them of objects that already carry every default (the controllers' and
// the workload generator's): these helpers copy only what changes and hand back the very same value otherwise.

/** `list` mapped by `fn`, or `list` itself when `fn` returned every element unchanged (or it is no array). */
export function mapChanged<T>(list: unknown, fn: (item: T) => T): unknown {
  if (!Array.isArray(list)) return list;
  let out: T[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const v = fn(list[i] as T);
    if (v !== list[i] && out === undefined) out = list.slice(0, i) as T[];
    if (out !== undefined) out.push(v);
  }
  return out ?? list;
}
