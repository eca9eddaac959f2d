// Finds the keys a JSON text repeats inside one object (JSON.parse keeps the last silently; kube's strict decoder reports
// each as `duplicate field "spec.replicas"`). One linear pass over text that JSON.parse has already accepted; paths are
// only spelled out for a duplicate, so the common case allocates little more than one key set per object.

interface Frame {
  array: boolean;
  parent: Frame | undefined;
  /** Where this value sits in its parent: the key, or the index as read when it opened. */
  at: string | number | undefined;
  index: number;
  keys: Set<string> | undefined;
  expectKey: boolean;
}

function pathOf(f: Frame | undefined, key: string | number): string {
  const segs: string[] = [];
  let at: string | number | undefined = key;
  for (let cur = f; cur; cur = cur.parent) {
    segs.push(typeof at === 'number' ? `[${at}]` : `.${at}`);
    at = cur.at;
  }
  return segs.reverse().join('').slice(1);
}

/** The paths of repeated keys, in text order; valid JSON assumed. */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let top: Frame | undefined;
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: a key where one is expected, else a value to skip
      let j = text.indexOf('"', i + 1);
      // A quote preceded by an odd run of backslashes is escaped: look further.
      for (;;) {
        let b = j - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((j - 1 - b) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (top && top.expectKey) {
        const raw = text.slice(i + 1, j);
        const key = raw.includes('\\') ? JSON.parse(`"${raw}"`) as string : raw;
        if (top.keys!.has(key)) out.push(pathOf(top, key));
        else top.keys!.add(key);
        top.expectKey = false;
        lastKey = key;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) { // { or [
      const at = top === undefined ? undefined : top.array ? top.index : lastKey;
      top = { array: c === 0x5b, parent: top, at, index: 0, keys: c === 0x7b ? new Set() : undefined, expectKey: c === 0x7b };
    } else if (c === 0x7d || c === 0x5d) { // } or ]
      top = top?.parent;
    } else if (c === 0x2c && top) { // ,
      if (top.array) top.index++;
      else top.expectKey = true;
    }
  }
  return out;
}
