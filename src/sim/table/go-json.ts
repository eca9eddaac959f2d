// JSON as Go's encoding/json writes it, for the parts of a Table the sim generates itself (the stored objects are sent as stored).

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/** JSON.stringify plus Go's HTML-safe escapes: kube's serializer writes "<none>" as "\u003cnone\u003e". */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(HTML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** json.Marshal of a decoded JSON value: Go sorts map keys, so objects come out with sorted keys. */
export function goMarshal(value: unknown): string {
  return goJson(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}
