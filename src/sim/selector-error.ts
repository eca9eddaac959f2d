// A label or field selector the server refuses: the message is exactly kube-apiserver's 400 Status message.

/** Thrown by the selector parsers; the HTTP layer answers 400 BadRequest with `message` as is. */
export class SelectorError extends Error {
  override readonly name = 'SelectorError';
}

/** Go's `%q` for the strings selectors quote (strconv.Quote): escapes `"`, `\` and control characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}
