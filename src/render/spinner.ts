// A progress spinner for stderr (ora, loaded on first use); on anything but a TTY it does nothing.
import type { Ora } from 'ora';

export interface Spinner {
  update(text: string): void;
  /** Stops with a ✔ line that stays on screen. */
  succeed(text?: string): void;
  /** Stops and clears the spinner line. */
  stop(): void;
  /** Settles once ora is loaded (or immediately for the no-op spinner); for tests and orderly exits. */
  readonly ready: Promise<void>;
}

const noop: Spinner = { update() {}, succeed() {}, stop() {}, ready: Promise.resolve() };

/**
 * Starts a spinner on `stream` (pass process.stderr: data goes to stdout, progress never does).
 * Returns at once; calls made while ora loads are applied when it has loaded.
 */
export function startSpinner(stream: NodeJS.WritableStream & { isTTY?: boolean }, text: string): Spinner {
  if (stream.isTTY !== true) return noop;
  let ora: Ora | undefined;
  let state: { text: string; done?: 'succeed' | 'stop'; final?: string } = { text };
  const ready = import('ora')
    .then(({ default: create }) => {
      ora = create({ text: state.text, stream, discardStdin: false });
      if (state.done === 'stop') return;
      if (state.done === 'succeed') ora.succeed(state.final ?? state.text);
      else ora.start();
    })
    .catch(() => {
      // Progress is decoration: when ora cannot load, carry on without it.
    });
  return {
    update(t) {
      if (state.done) return;
      state = { ...state, text: t };
      if (ora) ora.text = t;
    },
    succeed(t) {
      if (state.done) return;
      state = { ...state, done: 'succeed', final: t };
      ora?.succeed(t ?? state.text);
    },
    stop() {
      if (state.done) return;
      state = { ...state, done: 'stop' };
      ora?.stop();
    },
    ready,
  };
}
