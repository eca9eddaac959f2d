// Makes text from a server or a recording safe to show on a terminal: control characters become visible escapes.
//
// An annotation, a ConfigMap value or a Status message can hold `\x1b]0;title\x07` (sets the window
// title), `\x1b[2K\r` (erases the line and overwrites it) and the like; printed raw, they let whoever
// wrote the object rewrite what the user sees. kubectl escapes ESC and CR in its human output since
// 1.30 (as `^[` and `\r`); kwatch escapes every control character, in the `\x1b` spelling:
// - C0 controls (U+0000–U+001F) and DEL: `\x1b`, `\x07`, `\x7f`, with `\r`, `\n`, `\t` spelled so;
// - C1 controls (U+0080–U+009F; U+009B is a one-character CSI for some terminals): `\u009b`.
// A tab or a newline would break a table cell or a trace line, so both are escaped too, unless the
// text may span lines (an error message): then they are kept. A literal backslash is left as it is —
// `\x1b` in the output may be an escape or text; the machine outputs (json/ndjson/yaml) stay exact.

export interface TerminalEscapeOptions {
  /** Keep newlines and tabs (text printed on lines of its own, such as an error message). Default false. */
  multiline?: boolean;
}

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS_BUT_NEWLINE_AND_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with its control characters written as escapes (`\x1b`, `\r`, `\u009b`); text without any is returned as it is. */
export function escapeForTerminal(text: string, opts: TerminalEscapeOptions = {}): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(opts.multiline ? CONTROLS_BUT_NEWLINE_AND_TAB : CONTROLS, escapeOne);
}

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
