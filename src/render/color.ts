// Whether to colour a stream, and plain ANSI SGR codes (no chalk: one tiny helper is enough).

/** Anything output can be written to; `isTTY` as on process.stdout/stderr. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/**
 * Colour when the stream is a TTY, NO_COLOR is unset or empty and TERM is not `dumb`.
 * FORCE_COLOR (any value but `0`/`false`) forces colour on even when piped; FORCE_COLOR=0 forces it off.
 */
export function shouldColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

export const SGR = {
  bold: 1,
  dim: 2,
  inverse: 7,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  gray: 90,
} as const;

export type SgrName = keyof typeof SGR;

/** Wraps text in an SGR code; reset with 0 so nested styles never leak into padding. */
export function paint(style: SgrName, text: string): string {
  return `\x1b[${SGR[style]}m${text}\x1b[0m`;
}

/** Removes ANSI SGR sequences (tests, width computations). */
export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}
