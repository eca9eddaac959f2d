// Finds the keys a JSON text repeats inside one object (JSON.parse keeps the last silently; kube's strict decoder reports
// each as `duplicate field "spec.replicas"`). One linear pass over text that JSON.parse has already accepted.

interface Frame { array: boolean; path: string; keys?: Set<string>; index: number; expectKey: boolean }

function child(f: Frame | undefined, key: string | undefined): string {
  if (!f) return '';
  if (f.array) return `${f.path}[${f.index}]`;
  return f.path ? `${f.path}.${key}` : key!;
}

/** The paths of repeated keys, in text order; valid JSON assumed. */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22) { // a string: a key where one is expected, else a value to skip
      let j = i + 1;
      let escaped = false;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) { escaped = true; j++; } else if (d === 0x22) break;
      }
      if (top && !top.array && top.expectKey) {
        const raw = text.slice(i, j + 1);
        const key = escaped ? JSON.parse(raw) as string : raw.slice(1, -1);
        if (top.keys!.has(key)) out.push(child(top, key));
        else top.keys!.add(key);
        top.expectKey = false;
        lastKey = key;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) { // { or [
      stack.push({ array: c === 0x5b, path: child(top, lastKey), keys: c === 0x7b ? new Set() : undefined, index: 0, expectKey: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) { // } or ]
      stack.pop();
    } else if (c === 0x2c && top) { // ,
      if (top.array) top.index++;
      else top.expectKey = true;
    }
  }
  return out;
}
