import { describe, expect, it } from 'vitest';
import { startSpinner } from '../../src/render/spinner.js';

function fakeStream(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(
    {
      write(s: string | Uint8Array) {
        chunks.push(String(s));
        return true;
      },
      on() {
        return stream;
      },
      once() {
        return stream;
      },
      removeListener() {
        return stream;
      },
      off() {
        return stream;
      },
      // tty.WriteStream's cursor methods, which ora calls
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
      columns: 80,
    },
    { isTTY },
  );
  return { stream: stream as unknown as NodeJS.WritableStream & { isTTY?: boolean }, chunks };
}

describe('startSpinner', () => {
  it('does nothing when the stream is not a TTY', async () => {
    const { stream, chunks } = fakeStream(false);
    const s = startSpinner(stream, 'listing');
    s.update('page 2');
    s.succeed('synced');
    await s.ready;
    expect(chunks).toEqual([]);
  });

  it('shows the final text on a TTY, even when it finished before ora loaded', async () => {
    const { stream, chunks } = fakeStream(true);
    const s = startSpinner(stream, 'listing');
    s.update('page 2');
    s.succeed('synced 120 objects');
    await s.ready;
    expect(chunks.join('')).toContain('synced 120 objects');
  });
});
