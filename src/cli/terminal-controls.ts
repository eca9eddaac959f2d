// Terminal controls go only to a terminal. Libraries that draw on one stream restore it through another:
// restore-cursor (under ink and ora) writes "show cursor" (ESC [?25h) to process.stderr at exit whenever the
// cursor was hidden on any terminal — into a file when stderr is redirected. A write that is nothing but
// control sequences is dropped from a stream that is not a terminal; text (which kwatch escapes) passes.

/** One or more CSI sequences (ESC [ … final byte) and nothing else. */
// eslint-disable-next-line no-control-regex
const ONLY_CONTROLS = /^(?:\u001b\[[0-9;?]*[ -/]*[@-~])+$/;

type Stream = NodeJS.WritableStream & { isTTY?: boolean; write: (...args: never[]) => boolean };

/** Makes `stream` drop writes made only of terminal control sequences when it is not a terminal. */
export function keepTerminalControlsToTerminals(stream: Stream = process.stderr): void {
  if (stream.isTTY === true) return;
  const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  (stream as { write: unknown }).write = (...args: unknown[]): boolean => {
    const chunk = args[0];
    if (typeof chunk === 'string' ? ONLY_CONTROLS.test(chunk) : Buffer.isBuffer(chunk) && chunk.length < 64 && ONLY_CONTROLS.test(chunk.toString('latin1'))) {
      const done = args.find((a) => typeof a === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }
    return original(...args);
  };
}
