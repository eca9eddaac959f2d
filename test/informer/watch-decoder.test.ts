import { describe, expect, it } from 'vitest';
import { StreamCutError, WatchDecodeError } from '../../src/informer/errors.js';
import { decodeWatchBatches, decodeWatchStream } from '../../src/informer/watch-decoder.js';
import type { WatchEvent } from '../../src/informer/types.js';

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  for (const p of parts) yield p;
}

async function collect(body: AsyncIterable<string | Uint8Array>, onLine?: (n: number) => void): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const ev of decodeWatchStream(body, { onLine })) out.push(ev);
  return out;
}

const line = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: rv } } }) + '\n';

describe('decodeWatchStream', () => {
  it('decodes one event per line with its wire size including the newline', async () => {
    const l = line('ADDED', 'a', '1');
    const events = await collect(chunks(Buffer.from(l)));
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('ADDED');
    expect(events[0].object.metadata.name).toBe('a');
    expect(events[0].bytes).toBe(Buffer.byteLength(l));
  });

  it('reassembles a line split across several chunks', async () => {
    const l = line('MODIFIED', 'split', '7');
    const events = await collect(chunks(l.slice(0, 5), Buffer.from(l.slice(5, 30)), l.slice(30)));
    expect(events.map((e) => e.object.metadata.name)).toEqual(['split']);
    expect(events[0].bytes).toBe(Buffer.byteLength(l));
  });

  it('yields several events that arrive in one chunk, in order', async () => {
    const body = line('ADDED', 'a', '1') + line('MODIFIED', 'a', '2') + line('DELETED', 'a', '3');
    const events = await collect(chunks(body));
    expect(events.map((e) => `${e.type}@${e.object.metadata.resourceVersion}`)).toEqual(['ADDED@1', 'MODIFIED@2', 'DELETED@3']);
  });

  it('reassembles a UTF-8 character split between chunks', async () => {
    const l = line('ADDED', 'zürich-😀', '1');
    const bytes = Buffer.from(l);
    const cut = bytes.indexOf(Buffer.from('😀')) + 2; // in the middle of the 4-byte emoji
    const events = await collect(chunks(bytes.subarray(0, cut), bytes.subarray(cut)));
    expect(events[0].object.metadata.name).toBe('zürich-😀');
    expect(events[0].bytes).toBe(bytes.length);
  });

  it('skips blank lines and reports only real lines to onLine', async () => {
    const seen: number[] = [];
    const events = await collect(chunks('\n', line('ADDED', 'a', '1'), '  \r\n\n', line('BOOKMARK', '', '5')), (n) => seen.push(n));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(seen).toHaveLength(2);
  });

  it('accepts a last line without a trailing newline only if it is blank', async () => {
    await expect(collect(chunks(line('ADDED', 'a', '1'), '   '))).resolves.toHaveLength(1);
  });

  it('throws WatchDecodeError for a malformed line instead of dropping it', async () => {
    const it = decodeWatchStream(chunks(line('ADDED', 'a', '1'), '{"type":"ADDED","object":{\n', line('ADDED', 'b', '2')));
    const first = await it.next();
    expect(first.value?.object.metadata.name).toBe('a');
    const err = await it.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchDecodeError);
    expect((err as WatchDecodeError).message).toMatch(/^unable to decode an event from the watch stream: /);
    expect((err as WatchDecodeError).line).toBe('{"type":"ADDED","object":{');
  });

  it('throws WatchDecodeError for an unknown event type, as client-go does', async () => {
    const err = await collect(chunks('{"type":"CHANGED","object":{"metadata":{}}}\n')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchDecodeError);
    expect((err as Error).message).toBe('got invalid watch event type: "CHANGED"');
  });

  it('throws WatchDecodeError for a line that is JSON but not an event object', async () => {
    await expect(collect(chunks('[1,2]\n'))).rejects.toBeInstanceOf(WatchDecodeError);
    await expect(collect(chunks('{"type":"ADDED"}\n'))).rejects.toThrow(/without an object/);
  });

  it('throws StreamCutError when the body ends in the middle of a line, after the complete events', async () => {
    const got: string[] = [];
    const err = await (async () => {
      for await (const ev of decodeWatchStream(chunks(line('ADDED', 'a', '1') + '{"type":"MODIFIED","obj'))) got.push(ev.type);
    })().catch((e: unknown) => e);
    expect(got).toEqual(['ADDED']);
    expect(err).toBeInstanceOf(StreamCutError);
    expect((err as StreamCutError).partialLine).toBe('{"type":"MODIFIED","obj');
  });

  it('lets an error of the body itself pass through', async () => {
    async function* broken(): AsyncGenerator<string> {
      yield line('ADDED', 'a', '1');
      throw new Error('socket hang up');
    }
    await expect(collect(broken())).rejects.toThrow('socket hang up');
  });

  it('gives ERROR events their Status object', async () => {
    const events = await collect(chunks('{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}\n'));
    expect(events[0].type).toBe('ERROR');
    expect((events[0].object as unknown as { code: number }).code).toBe(410);
  });

  it('decodes a large stream of big events cut at arbitrary points', async () => {
    const big = 'x'.repeat(6000);
    const body = Buffer.from(Array.from({ length: 200 }, (_, i) => JSON.stringify({ type: 'ADDED', object: { metadata: { name: `p${i}`, resourceVersion: String(i) }, spec: { big } } }) + '\n').join(''));
    const parts: Buffer[] = [];
    for (let i = 0; i < body.length; i += 4093) parts.push(body.subarray(i, i + 4093));
    const events = await collect(chunks(...parts));
    expect(events).toHaveLength(200);
    expect(events[199].object.metadata.name).toBe('p199');
    expect(events.reduce((s, e) => s + (e.bytes ?? 0), 0)).toBe(body.length);
  });
});

describe('lines split across chunks', () => {
  // The body below hands out one buffer it overwrites for every chunk, as a socket reader may: the decoder
  // must copy what it keeps of a chunk before it asks for the next.
  async function* reusedBuffer(body: Buffer, size: number): AsyncGenerator<Uint8Array> {
    const scratch = Buffer.alloc(size);
    for (let i = 0; i < body.length; i += size) {
      const n = body.copy(scratch, 0, i, i + size);
      yield scratch.subarray(0, n);
      scratch.fill(0x7b); // '{': leftovers would make any line read from here malformed
    }
  }
  const managed = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': {} } }];
  const pod = (name: string, pad: number) => ({ type: 'MODIFIED', object: { metadata: { name, resourceVersion: '1', managedFields: managed }, spec: { pad: 'y'.repeat(pad) } } });

  it('decode the same over a reused chunk buffer, managedFields cut or not, long lines (over 1 MiB) between short ones', async () => {
    const sizes = [10, 3000, 1_500_000, 20, 9000, 2_100_000, 5];
    const body = Buffer.from(sizes.map((n, i) => `${JSON.stringify(pod(`p${i}`, n))}\n`).join(''));
    for (const omitManagedFields of [false, true]) {
      for (const chunk of [7, 4096, 65536]) {
        const events: WatchEvent[] = [];
        for await (const e of decodeWatchStream(reusedBuffer(body, chunk), { omitManagedFields })) events.push(e);
        expect(events.map((e) => [e.object.metadata.name, (e.object as unknown as { spec: { pad: string } }).spec.pad.length])).toEqual(sizes.map((n, i) => [`p${i}`, n]));
        expect(events.every((e) => (e.object.metadata.managedFields === undefined) === omitManagedFields)).toBe(true);
        expect(events.reduce((s, e) => s + (e.bytes ?? 0), 0)).toBe(body.length);
      }
    }
  });

  it('reports a line cut by the end of the body whole, after a longer line used the buffer', async () => {
    const first = `${JSON.stringify(pod('long', 50_000))}\n`;
    const cut = '{"type":"ADDED","object":{"metadata":{"name":"cu';
    const err = await collect(reusedBuffer(Buffer.from(first + cut), 1000)).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StreamCutError);
    expect((err as StreamCutError).partialLine).toBe(cut);
  });
});

describe('decodeWatchBatches', () => {
  const names = (batch: readonly WatchEvent[]) => batch.map((e) => e.object.metadata.name);

  it('groups the events by the chunk that completed their lines, never yielding an empty group', async () => {
    const a = line('ADDED', 'a', '1');
    const b = line('ADDED', 'b', '2');
    const c = line('ADDED', 'c', '3');
    const groups: (string | undefined)[][] = [];
    // chunk 1 completes a and b; chunk 2 (half of c) completes nothing; chunk 3 completes c.
    for await (const batch of decodeWatchBatches(chunks(a + b + c.slice(0, 10), c.slice(10, 20), c.slice(20)))) groups.push(names(batch));
    expect(groups).toEqual([['a', 'b'], ['c']]);
  });

  it('hands over the events before a bad line, then fails with the line’s error', async () => {
    const groups: (string | undefined)[][] = [];
    let err: unknown;
    try {
      for await (const batch of decodeWatchBatches(chunks(line('ADDED', 'a', '1') + line('ADDED', 'b', '2') + '{"type":"ADDED","object":\n' + line('ADDED', 'c', '3')))) groups.push(names(batch));
    } catch (e) {
      err = e;
    }
    expect(groups).toEqual([['a', 'b']]);
    expect(err).toBeInstanceOf(WatchDecodeError);
  });

  it('reports every line of a group to onLine, in order, before yielding the group', async () => {
    const seen: number[] = [];
    const body = line('ADDED', 'a', '1') + '\n' + line('MODIFIED', 'bb', '2');
    for await (const batch of decodeWatchBatches(chunks(body), { onLine: (n) => seen.push(n) })) {
      expect(seen).toEqual(batch.map((e) => e.bytes));
    }
    expect(seen).toHaveLength(2);
  });
});
