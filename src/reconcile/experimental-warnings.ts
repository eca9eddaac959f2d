// Node prints "X is an experimental feature" once per process for features kwatch chooses to use. They are
// kwatch's choice, not something the user can act on, so these few (and only these) are kept off stderr.
const hidden: RegExp[] = [];

/** From now on, drop Node's warnings whose message matches pattern (any other warning still prints). */
export function hideExperimentalWarning(pattern: RegExp): void {
  if (hidden.some((p) => p.source === pattern.source)) return;
  hidden.push(pattern);
  if (hidden.length > 1) return;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (hidden.some((p) => p.test(text))) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
}
