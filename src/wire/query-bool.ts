// A boolean query parameter as kube-apiserver decodes ListOptions (watch, allowWatchBookmarks, sendInitialEvents):
// apimachinery's Convert_Slice_string_To_bool reads only an absent value, "0" and "false" (any case) as false, and
// any other value, an empty one included, as true — not strconv.ParseBool (`?watch=yes` is a watch).

/** The parameter's value (URLSearchParams.get: the first one) → true or false; undefined when it is absent. */
export function queryBool(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  const l = v.toLowerCase();
  return !(l === '0' || l === 'false');
}
