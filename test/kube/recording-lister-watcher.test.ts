// RecordingListerWatcher + RecordingFile: every page, watch start, event, end and error lands in the file as it happens.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConnectionError, StatusError } from '../../src/informer/errors.js';
import type { ListerWatcher, WatchEvent, WatchStream } from '../../src/informer/types.js';
import { RecordingFile } from '../../src/kube/recording/recording-file.js';
import { RecordingListerWatcher } from '../../src/kube/recording/recording-lister-watcher.js';
import { maskSecrets } from '../../src/render/secrets.js';
import { tempDir } from '../temp-dir.js';

const header = { kind: 'KwatchRecording' as const, formatVersion: 1, kwatchVersion: '0.0.0', server: 'http://x', resources: [], masked: true };

function stream(events: WatchEvent[], fail?: Error): WatchStream {
  return {
    close() {},
    async *[Symbol.asyncIterator]() {
      for (const e of events) yield e;
      if (fail) throw fail;
    },
  };
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('RecordingListerWatcher', () => {
  it('records a list page, a watch start, each event as it is read, and the end of the stream', async () => {
    const file = join(tempDir('kwatch-rec-'), 'r.ndjson');
    const rec = new RecordingFile(file, header);
    const ev: WatchEvent = { type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'a', resourceVersion: '2' } }, bytes: 40 };
    const inner: ListerWatcher = {
      list: async () => ({ metadata: { resourceVersion: '1' }, items: [], bytes: 55 }),
      watch: async () => stream([ev], new ConnectionError('reset', 'ECONNRESET')),
    };
    const lw = new RecordingListerWatcher(inner, rec, 0);
    await lw.list({ limit: 500 });
    const w = await lw.watch({ resourceVersion: '1' });
    const it = w[Symbol.asyncIterator]();
    await it.next();
    // the event is on disk before the consumer even asks for the next one
    expect(lines(file).at(-1)).toMatchObject({ rec: 'event', res: 0, conn: 2, event: { type: 'ADDED' } });
    await expect(it.next()).rejects.toThrow('reset');
    rec.close();
    const all = lines(file);
    expect(all.map((l) => l.rec ?? l.kind)).toEqual(['KwatchRecording', 'list', 'watch-start', 'event', 'watch-end']);
    expect(all[1]).toMatchObject({ conn: 1, options: { limit: 500 }, page: { metadata: { resourceVersion: '1' } }, bytes: 55 });
    expect(all[1].page).not.toHaveProperty('bytes');
    expect(all[4]).toMatchObject({ reason: 'error', error: 'reset', conn: 2 });
    expect(typeof all[0].startTime).toBe('string');
  });

  it('records failed requests with the server\'s Status, and masks Secrets when asked', async () => {
    const file = join(tempDir('kwatch-rec-'), 'r.ndjson');
    const rec = new RecordingFile(file, header, { redact: (v) => maskSecrets(v) });
    const status = { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const, reason: 'Forbidden', message: 'no', code: 403 };
    const secret = { kind: 'Secret', metadata: { name: 's' }, data: { token: Buffer.from('abc').toString('base64') } };
    const inner: ListerWatcher = {
      list: async () => Promise.reject(new StatusError(status)),
      watch: async () => stream([{ type: 'MODIFIED', object: secret }]),
    };
    const lw = new RecordingListerWatcher(inner, rec, 3);
    await expect(lw.list({})).rejects.toThrow('no');
    for await (const _ of await lw.watch({})) void _;
    rec.close();
    const all = lines(file);
    expect(all[1]).toMatchObject({ rec: 'error', op: 'list', res: 3, status: { code: 403 }, message: 'no' });
    expect(all[3].event.object.data.token).toBe('<masked 3 bytes>');
    expect(all[4]).toMatchObject({ rec: 'watch-end', reason: 'eof' });
  });
});
