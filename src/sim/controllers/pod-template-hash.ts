// The pod-template-hash label value: kube's ComputeHash shape (FNV-32a of the template, plus the collision count,
// printed in decimal and re-spelled in the name alphabet), so ReplicaSet and pod names look like a cluster's.

/** apimachinery's rand alphabet: no vowels, no look-alike characters. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * kube hashes the Go struct as printed by spew; the sim hashes the template's JSON with sorted keys instead, so the
 * values differ from a real cluster's for the same template but keep the properties that matter: deterministic,
 * equal for equal templates, different after any change, and different again for each collision count.
 */
export function podTemplateHash(template: unknown, collisionCount?: number): string {
  let h = 0x811c9dc5;
  const feed = (bytes: Uint8Array): void => {
    for (const b of bytes) {
      h ^= b;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  };
  feed(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined) {
    // binary.LittleEndian.PutUint32 into an 8-byte buffer, as ComputeHash writes it.
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    feed(bytes);
  }
  return safeEncode(String(h >>> 0));
}

/** rand.SafeEncodeString: each character becomes ALPHANUMS[code % 27]. */
export function safeEncode(s: string): string {
  let out = '';
  for (const ch of s) out += ALPHANUMS[ch.codePointAt(0)! % ALPHANUMS.length];
  return out;
}

/** JSON with object keys sorted at every level (undefined members dropped), so equal templates hash equally. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}
