import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScannedEvent } from '../../src/endpoint/body-scan.js';
import { tapWatch } from '../../src/endpoint/watch-tap.js';
import { parseInjectSpec } from '../../src/faults/inject-spec.js';
import { WatchFaults, type EventFaults, type FaultableWatch } from '../../src/faults/watch-faults.js';
import { encodeCbor } from '../../src/sim/cbor-wire.js';
import { watchEventFrame } from '../../src/wire/protobuf/from-json.js';

const event = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'demo', resourceVersion: rv, managedFields: [{ manager: 'x' }] }, data: { note: 'a\nb "}' } } });
const STREAM = `${event('ADDED', 'a', '1')}\n${event('MODIFIED', 'a', '2')}\r\n\n${event('DELETED', 'a', '3')}\n${event('ADDED', 'b', '4')}`;

let server: Server | undefined;
afterEach(() => server?.close());

/** A watch answered by a handler that writes STREAM cut every `cut` bytes, through the tap; what the client got and the tap saw. */
async function watchThroughTap(cut: number, faults?: WatchFaults): Promise<{ received: string; seen: ScannedEvent[]; closed: string }> {
  const seen: ScannedEvent[] = [];
  let closed = '';
  server = createServer((req, res) => {
    tapWatch(req, res, faults, { started: () => {}, event: (e) => seen.push(e), fault: () => {}, closed: (why) => { closed = why; } });
    res.writeHead(200, { 'content-type': 'application/json' });
    const b = Buffer.from(STREAM);
    for (let i = 0; i < b.length; i += cut) res.write(b.subarray(i, i + cut));
    res.end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const received = await new Promise<string>((resolve, reject) => {
    request({ port: (server!.address() as AddressInfo).port, path: '/api/v1/configmaps?watch=1' }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    }).on('error', reject).end();
  });
  await new Promise((r) => setTimeout(r, 20));
  return { received, seen, closed };
}

describe('tapWatch', () => {
  it('passes the stream on byte for byte and sees each event once, however its writer cut it', async () => {
    for (const cut of [1, 7, 100, 10_000]) {
      const { received, seen, closed } = await watchThroughTap(cut);
      expect(received).toBe(STREAM);
      expect(seen.map((e) => `${e.type} ${e.key}@${e.rv}`)).toEqual(['ADDED demo/a@1', 'MODIFIED demo/a@2', 'DELETED demo/a@3', 'ADDED demo/b@4']);
      expect(seen[1].object!.raw()).toEqual(JSON.parse(event('MODIFIED', 'a', '2')).object);
      expect(closed).toBe('server');
      server!.close();
    }
  });

  it('with faults, rewrites the stream line by line: a hidden delete is not sent, a duplicated event is sent twice', async () => {
    const faults = new WatchFaults([parseInjectSpec('hide-delete:demo/a'), parseInjectSpec('duplicate@4')]);
    const { received, seen } = await watchThroughTap(9, faults);
    expect(received.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { resourceVersion: string } } }).map((e) => `${e.type}@${e.object.metadata.resourceVersion}`)).toEqual(['ADDED@1', 'MODIFIED@2', 'ADDED@4', 'ADDED@4']);
    expect(seen.map((e) => e.rv)).toEqual(['1', '2', '4', '4']);
  });
});

describe('tapWatch: an injected 410', () => {
  it('sends the client kube\'s Expired Status after the event it fires on, ends the stream, and says 410', async () => {
    const faults = new WatchFaults([parseInjectSpec('expire@2')]);
    const { received, seen, closed } = await watchThroughTap(9, faults);
    const lines = received.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: Record<string, unknown> });
    expect(lines.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'ERROR']);
    expect(lines[2].object).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: injected by kwatch (expire@2)', reason: 'Expired', code: 410 });
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'ERROR']);
    expect(closed).toBe('410');
  });
});

/** What a client of a tapped watch got: its bytes, the events the tap saw, the faults it recorded, how it closed. */
interface Tapped { received: Buffer; seen: ScannedEvent[]; faults: string[]; closed: string; firstByteMs: number; ended: 'end' | 'error' }

/** A watch answered by `write` (after the 200 with `contentType`), through the tap. */
async function tapped(contentType: string, write: (res: ServerResponse) => void | Promise<void>, faults?: WatchFaults, more: { timeoutSeconds?: number; clientLeaves?: boolean } = {}): Promise<Tapped> {
  const seen: ScannedEvent[] = [];
  const faultTexts: string[] = [];
  let closed = '';
  server = createServer((req, res) => {
    tapWatch(req, res, faults, { started: () => {}, event: (e) => seen.push(e), fault: (t) => faultTexts.push(t), closed: (why) => { closed = why; } }, { timeoutSeconds: more.timeoutSeconds });
    res.writeHead(200, { 'content-type': contentType });
    void write(res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const startedAt = Date.now();
  let firstByteMs = -1;
  const { received, ended } = await new Promise<{ received: Buffer; ended: 'end' | 'error' }>((resolve) => {
    const parts: Buffer[] = [];
    const done = (ended: 'end' | 'error') => resolve({ received: Buffer.concat(parts), ended });
    const req = request({ port: (server!.address() as AddressInfo).port, path: '/api/v1/configmaps?watch=1' }, (res) => {
      res.on('data', (c: Buffer) => {
        if (firstByteMs < 0) firstByteMs = Date.now() - startedAt;
        parts.push(c);
        if (more.clientLeaves) { req.destroy(); done('error'); }
      });
      res.on('end', () => done('end'));
      res.on('error', () => done('error'));
    });
    req.on('error', () => done('error')).end();
  });
  // The server's close event follows the client's end: wait for it (bounded).
  for (let i = 0; i < 200 && closed === ''; i++) await new Promise((r) => setTimeout(r, 10));
  return { received, seen, faults: faultTexts, closed, firstByteMs, ended };
}

const writeCut = (bytes: Buffer, cut: number) => (res: ServerResponse) => {
  for (let i = 0; i < bytes.length; i += cut) res.write(bytes.subarray(i, i + cut));
  res.end();
};
/** The same, one chunk a turn of the event loop, as a server streams events (a writer may go on after the tap stopped). */
const writeSlowly = (bytes: Buffer, cut: number) => async (res: ServerResponse) => {
  for (let i = 0; i < bytes.length; i += cut) { res.write(bytes.subarray(i, i + cut)); await new Promise((r) => setImmediate(r)); }
  res.end();
};
const rvsOf = (text: string) => text.split('\n').filter(Boolean).map((l) => `${(JSON.parse(l) as { type: string }).type}@${(JSON.parse(l) as { object: { metadata: { resourceVersion: string } } }).object.metadata.resourceVersion}`);
const configMap = (name: string, rv: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'demo', resourceVersion: rv }, data: { note: 'x' } });
const WIRE_EVENTS = [['ADDED', 'a', '1'], ['MODIFIED', 'a', '2'], ['DELETED', 'a', '3']] as const;

describe('tapWatch: delay', () => {
  it('holds every event for the delay, then delivers them all in order, and ends the stream only after the last', async () => {
    const faults = new WatchFaults([parseInjectSpec('delay:300ms')]);
    faults.start();
    try {
      // A line every 60 ms: the events come due one after another, the later ones after the first timer fired.
      const r = await tapped('application/json', async (res) => {
        for (const line of STREAM.split(/(?<=\n)/)) { res.write(line); await new Promise((t) => setTimeout(t, 60)); }
        res.end();
      }, faults);
      // Real time, a lower bound only: a timer never fires early, however slow the machine.
      expect(r.firstByteMs).toBeGreaterThanOrEqual(250);
      expect(r.ended).toBe('end');
      expect(rvsOf(r.received.toString('utf8'))).toEqual(['ADDED@1', 'MODIFIED@2', 'DELETED@3', 'ADDED@4']);
      expect(r.seen.map((e) => e.rv)).toEqual(['1', '2', '3', '4']);
      expect(r.closed).toBe('server');
    } finally {
      faults.stop();
    }
  });
});

describe('tapWatch: drop-connection', () => {
  it('sends the events up to the one it fires on, then breaks the client\'s connection and closes the writer\'s response', async () => {
    const faults = new WatchFaults([parseInjectSpec('drop-connection@2')]);
    let writer: ServerResponse | undefined;
    const r = await tapped('application/json', (res) => { writer = res; return writeSlowly(Buffer.from(STREAM), 9)(res); }, faults);
    expect(r.ended).toBe('error');
    expect(rvsOf(r.received.toString('utf8'))).toEqual(['ADDED@1', 'MODIFIED@2']);
    expect(r.seen.map((e) => e.rv)).toEqual(['1', '2']);
    expect(r.faults).toEqual(['drop-connection@2']);
    expect(r.closed).toBe('fault');
    expect(writer!.destroyed).toBe(true);
  });
});

describe('tapWatch: a string chunk with its encoding', () => {
  it('reads the chunk in the encoding it was written in, with faults and without', async () => {
    for (const faults of [undefined, new WatchFaults([parseInjectSpec('hide-delete:demo/b')])]) {
      const hex = Buffer.from(STREAM).toString('hex');
      const r = await tapped('application/json', (res) => {
        for (let i = 0; i < hex.length; i += 14) res.write(hex.slice(i, i + 14), 'hex');
        res.end();
      }, faults);
      expect(rvsOf(r.received.toString('utf8'))).toEqual(['ADDED@1', 'MODIFIED@2', 'DELETED@3', 'ADDED@4']);
      expect(r.seen.map((e) => `${e.type} ${e.key}@${e.rv}`)).toEqual(['ADDED demo/a@1', 'MODIFIED demo/a@2', 'DELETED demo/a@3', 'ADDED demo/b@4']);
      server!.close();
    }
  });
});

describe('tapWatch: protobuf and CBOR streams', () => {
  const wires = [
    { name: 'protobuf frames', type: 'application/vnd.kubernetes.protobuf;stream=watch', bytes: Buffer.concat(WIRE_EVENTS.map(([t, n, rv]) => watchEventFrame(t, configMap(n, rv)))) },
    { name: 'CBOR items', type: 'application/cbor-seq', bytes: Buffer.concat(WIRE_EVENTS.map(([t, n, rv]) => encodeCbor({ type: t, object: configMap(n, rv) }))) },
  ];
  for (const wire of wires) {
    it(`passes ${wire.name} on untouched and sees each event once, split across writes at every byte`, async () => {
      for (let cut = 1; cut <= wire.bytes.length; cut++) {
        // The writer reuses its chunk once its write called back (as a pooled writer may): the tap must have copied
        // the part of an item it keeps for later.
        const r = await tapped(wire.type, async (res) => {
          const scratch = Buffer.alloc(wire.bytes.length);
          for (let i = 0; i < wire.bytes.length; i += cut) {
            const n = wire.bytes.copy(scratch, 0, i, i + cut);
            await new Promise((written) => res.write(scratch.subarray(0, n), written));
            scratch.fill(0xff);
          }
          res.end();
        });
        expect(r.received.equals(wire.bytes), `cut ${cut}`).toBe(true);
        expect(r.seen.map((e) => `${e.type} ${e.key}@${e.rv}`), `cut ${cut}`).toEqual(['ADDED demo/a@1', 'MODIFIED demo/a@2', 'DELETED demo/a@3']);
        expect(r.closed).toBe('server');
        server!.close();
      }
    });
  }
});

describe('tapWatch: how a stream ended', () => {
  it('says timeout when the server ended it at its timeoutSeconds, server before, client when the client left', async () => {
    // timeoutSeconds 1: an end from 0 s on counts as the server's timeout (a second of slack for the server's clock).
    expect((await tapped('application/json', writeCut(Buffer.from(STREAM), 100), undefined, { timeoutSeconds: 1 })).closed).toBe('timeout');
    server!.close();
    expect((await tapped('application/json', writeCut(Buffer.from(STREAM), 100), undefined, { timeoutSeconds: 60 })).closed).toBe('server');
    server!.close();
    const endless = (res: ServerResponse) => { res.write(`${event('ADDED', 'a', '1')}\n`); };
    const left = await tapped('application/json', endless, undefined, { clientLeaves: true });
    expect(left.closed).toBe('client');
    expect(left.seen.map((e) => e.rv)).toEqual(['1']);
  });
});

describe('tapWatch: a timed fault that came due before the watch opened', () => {
  const due = async (spec: string) => {
    const faults = new WatchFaults([parseInjectSpec(spec)]);
    faults.start();
    // Most likely due by then (it then fires as the watch registers); on a slow machine it fires on the open watch
    // instead, with the same result.
    await new Promise((r) => setTimeout(r, 20));
    return faults;
  };
  it('a drop-connection breaks the watch as it opens, recorded once', async () => {
    const faults = await due('drop-connection@1ms');
    const r = await tapped('application/json', writeSlowly(Buffer.from(STREAM), 9), faults);
    expect(r.ended).toBe('error');
    expect(r.received.length).toBe(0);
    expect(r.faults).toEqual(['drop-connection@1ms']);
    expect(r.seen).toEqual([]);
    expect(r.closed).toBe('fault');
  });
  it('an expire sends kube\'s Expired Status as the watch opens, and nothing of the stream', async () => {
    const faults = await due('expire@1ms');
    const r = await tapped('application/json', writeSlowly(Buffer.from(STREAM), 9), faults);
    expect(r.ended).toBe('end');
    expect(r.received.toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { object: { message: string } }).object.message)).toEqual(['too old resource version: injected by kwatch (expire@1ms)']);
    expect(r.faults).toEqual(['expire@1ms']);
    expect(r.seen.map((e) => e.type)).toEqual(['ERROR']);
    expect(r.closed).toBe('410');
  });
});

describe('tapWatch: the server\'s own 410', () => {
  const expired = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 } };
  it('a JSON stream ending in an Expired Status closes as 410, with faults and without', async () => {
    const bookmark = JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '5' } } });
    const body = `${event('ADDED', 'a', '1')}\n${bookmark}\n${JSON.stringify(expired)}\n`;
    for (const faults of [undefined, new WatchFaults([parseInjectSpec('hide-delete:demo/a')])]) {
      const r = await tapped('application/json', writeCut(Buffer.from(body), 5), faults);
      expect(r.received.toString('utf8')).toBe(body);
      expect(r.seen.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK', 'ERROR']);
      expect(r.faults).toEqual([]);
      expect(r.closed).toBe('410');
      server!.close();
    }
  });
  it('so does a CBOR or protobuf stream', async () => {
    for (const [type, bytes] of [['application/cbor-seq', encodeCbor(expired)], ['application/vnd.kubernetes.protobuf;stream=watch', watchEventFrame('ERROR', expired.object)]] as const) {
      const r = await tapped(type, writeCut(bytes, 3));
      expect(r.seen.map((e) => e.type), type).toEqual(['ERROR']);
      expect(r.closed, type).toBe('410');
      server!.close();
    }
  });
});

/**
 * Faults made by hand: each event's faults by its resourceVersion, a fixed delay, and the watch the tap registers,
 * so that a test can fire a timed fault exactly when it wants.
 */
function handFaults(o: { delayMs?: number; byRv?: Record<string, Partial<EventFaults>> }) {
  let watch: FaultableWatch | undefined;
  const faults = {
    delayMs: () => o.delayMs ?? 0,
    forEvent: (_type: string, _key: string | undefined, rv: string | undefined): EventFaults => ({ hide: false, duplicate: false, fired: [], ...(rv !== undefined ? o.byRv?.[rv] : undefined) }),
    register: (w: FaultableWatch) => { watch = w; return () => { watch = undefined; }; },
  };
  return { faults: faults as unknown as WatchFaults, watch: () => watch };
}
const lineOf = (type: string, name: string, rv: string) => `${event(type, name, rv)}\n`;
const statusEvent = (code: number, reason: string) => ({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: reason, reason, code } });

describe('tapWatch: what is not a JSON watch goes on untouched', () => {
  it('a 200 that is not JSON, and a JSON error answer, pass as they came, faults or not, and no event is seen', async () => {
    const faults = () => new WatchFaults([parseInjectSpec('hide-delete:demo/a'), parseInjectSpec('duplicate@1')]);
    const plain = await tapped('text/plain', writeCut(Buffer.from(STREAM), 9), faults());
    expect(plain.received.toString('utf8')).toBe(STREAM);
    expect(plain.seen).toEqual([]);
    expect(plain.faults).toEqual([]);
    server!.close();
    // A 403 with kube's Status: the tap reads the status line, not the body.
    const denied = JSON.stringify(statusEvent(403, 'Forbidden').object);
    const seen: ScannedEvent[] = [];
    server = createServer((req, res) => {
      tapWatch(req, res, faults(), { started: () => {}, event: (e) => seen.push(e), fault: () => {}, closed: () => {} });
      res.writeHead(403, { 'content-type': 'application/json' });
      res.write(denied.slice(0, 10));
      res.end(denied.slice(10));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const body = await new Promise<string>((resolve, reject) => {
      request({ port: (server!.address() as AddressInfo).port, path: '/api/v1/configmaps?watch=1' }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      }).on('error', reject).end();
    });
    expect(body).toBe(denied);
    expect(seen).toEqual([]);
  });
});

describe('tapWatch: the bytes a faulted stream sends', () => {
  it('each line as it came, its own line end kept, blank lines left out, and a newline after a last line that had none', async () => {
    const r = await tapped('application/json', writeCut(Buffer.from(STREAM), 11), new WatchFaults([parseInjectSpec('hide-delete:demo/nobody')]));
    expect(r.received.toString('utf8')).toBe(`${event('ADDED', 'a', '1')}\n${event('MODIFIED', 'a', '2')}\r\n${event('DELETED', 'a', '3')}\n${event('ADDED', 'b', '4')}\n`);
  });
});

describe('tapWatch: faults on events held back by a delay', () => {
  it('an expire sends the held events first, then the 410, and ends the stream', async () => {
    const faults = new WatchFaults([parseInjectSpec('delay:40ms'), parseInjectSpec('expire@2')]);
    faults.start();
    try {
      const r = await tapped('application/json', writeCut(Buffer.from(STREAM), 9), faults);
      expect(r.ended).toBe('end');
      expect(r.received.toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ADDED', 'MODIFIED', 'ERROR']);
      expect(r.faults).toEqual(['expire@2']);
      expect(r.closed).toBe('410');
    } finally {
      faults.stop();
    }
  });
  it('a drop-connection sends the held events first, then breaks the connection', async () => {
    const faults = new WatchFaults([parseInjectSpec('delay:40ms'), parseInjectSpec('drop-connection@2')]);
    faults.start();
    try {
      const r = await tapped('application/json', writeCut(Buffer.from(STREAM), 9), faults);
      expect(r.ended).toBe('error');
      expect(rvsOf(r.received.toString('utf8'))).toEqual(['ADDED@1', 'MODIFIED@2']);
      expect(r.closed).toBe('fault');
    } finally {
      faults.stop();
    }
  });
  it('a timed fault that comes while the 410 is still held back is not recorded, and does not break the stream', async () => {
    for (const late of ['expire', 'drop'] as const) {
      const hand = handFaults({ delayMs: 40, byRv: { 1: { then: 'expire', fired: ['expire@1'] } } });
      const r = await tapped('application/json', async (res) => {
        // Once the tap registered the watch (the turn after its headers).
        await new Promise((t) => setImmediate(t));
        res.write(lineOf('ADDED', 'a', '1'));
        hand.watch()![late](`${late}@1ms`);
        res.end();
      }, hand.faults);
      expect(r.ended, late).toBe('end');
      expect(r.received.toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type), late).toEqual(['ADDED', 'ERROR']);
      expect(r.faults, late).toEqual(['expire@1']);
      expect(r.closed, late).toBe('410');
      server!.close();
    }
  });
});

describe('tapWatch: a fault on a watch its server keeps open', () => {
  it('an expire ends the client\'s stream after the 410, and a drop breaks it, though the writer never ends', async () => {
    for (const spec of ['expire@1', 'drop-connection@1']) {
      // As a real server's watch: an event, then nothing until its timeout.
      const r = await tapped('application/json', (res) => { res.write(lineOf('ADDED', 'a', '1')); }, new WatchFaults([parseInjectSpec(spec)]));
      const types = r.received.toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type);
      expect(types, spec).toEqual(spec.startsWith('expire') ? ['ADDED', 'ERROR'] : ['ADDED']);
      expect(r.ended, spec).toBe(spec.startsWith('expire') ? 'end' : 'error');
      expect(r.closed, spec).toBe(spec.startsWith('expire') ? '410' : 'fault');
      server!.close();
    }
  });
  it('with a delay, an expire or a drop still ends the stream once the held events are out, though the writer never ends', async () => {
    for (const spec of ['expire@1', 'drop-connection@1']) {
      // The fault fires while its event is held back: the end waits for the queue, and nothing else would end it.
      const faults = new WatchFaults([parseInjectSpec('delay:20ms'), parseInjectSpec(spec)]);
      faults.start();
      try {
        const r = await tapped('application/json', (res) => { res.write(lineOf('ADDED', 'a', '1')); }, faults);
        const types = r.received.toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type);
        expect(types, spec).toEqual(spec.startsWith('expire') ? ['ADDED', 'ERROR'] : ['ADDED']);
        expect(r.ended, spec).toBe(spec.startsWith('expire') ? 'end' : 'error');
        expect(r.closed, spec).toBe(spec.startsWith('expire') ? '410' : 'fault');
      } finally {
        faults.stop();
        server!.close();
      }
    }
  });
});

describe('tapWatch: two faults on one event', () => {
  it('records both, and the 410 names both', async () => {
    const r = await tapped('application/json', writeCut(Buffer.from(STREAM), 9), new WatchFaults([parseInjectSpec('duplicate@2'), parseInjectSpec('expire@2')]));
    const lines = r.received.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { message?: string; metadata: { resourceVersion?: string } } });
    expect(lines.map((e) => `${e.type}@${e.object.metadata.resourceVersion}`)).toEqual(['ADDED@1', 'MODIFIED@2', 'MODIFIED@2', 'ERROR@undefined']);
    expect(lines[3].object.message).toBe('too old resource version: injected by kwatch (duplicate@2,expire@2)');
    expect(r.faults).toEqual(['duplicate@2', 'expire@2']);
  });
});

describe('tapWatch: an ERROR that is not a 410', () => {
  it('ends as the server\'s end, not as 410, on a JSON, CBOR and protobuf stream', async () => {
    const internal = statusEvent(500, 'InternalError');
    for (const [type, bytes] of [
      ['application/json', Buffer.from(`${JSON.stringify(internal)}\n`)],
      ['application/cbor-seq', encodeCbor(internal)],
      ['application/vnd.kubernetes.protobuf;stream=watch', watchEventFrame('ERROR', internal.object)],
    ] as const) {
      const r = await tapped(type, writeCut(bytes, 4));
      expect(r.seen.map((e) => `${e.type} ${e.status?.code}`), type).toEqual(['ERROR 500']);
      expect(r.closed, type).toBe('server');
      server!.close();
    }
  });
});

describe('tapWatch: CBOR and protobuf written as strings, and items that are no watch event', () => {
  const items = (encode: (type: string, object: Record<string, unknown>) => Buffer) => Buffer.concat(WIRE_EVENTS.map(([t, n, rv]) => encode(t, configMap(n, rv))));
  const wires = [
    { type: 'application/cbor-seq', bytes: items((t, o) => encodeCbor({ type: t, object: o })), junk: encodeCbor({ hello: 1 }) },
    // A frame whose bytes are no WatchEvent message.
    { type: 'application/vnd.kubernetes.protobuf;stream=watch', bytes: items((t, o) => watchEventFrame(t, o)), junk: Buffer.from([0, 0, 0, 3, 0xff, 0xff, 0xff]) },
  ];
  for (const wire of wires) {
    it(`${wire.type}: a latin1 string is read as the bytes it stands for`, async () => {
      const text = wire.bytes.toString('latin1');
      const r = await tapped(wire.type, (res) => {
        for (let i = 0; i < text.length; i += 5) res.write(text.slice(i, i + 5), 'latin1');
        res.end();
      });
      expect(r.received.equals(wire.bytes)).toBe(true);
      expect(r.seen.map((e) => `${e.type} ${e.key}@${e.rv}`)).toEqual(['ADDED demo/a@1', 'MODIFIED demo/a@2', 'DELETED demo/a@3']);
    });
    it(`${wire.type}: an item that is no watch event is seen as UNKNOWN, and the stream goes on`, async () => {
      const bytes = Buffer.concat([wire.junk, wire.bytes]);
      const r = await tapped(wire.type, writeCut(bytes, 3));
      expect(r.received.equals(bytes)).toBe(true);
      expect(r.seen.map((e) => e.type)).toEqual(['UNKNOWN', 'ADDED', 'MODIFIED', 'DELETED']);
    });
  }
});

describe('tapWatch: the writer\'s calls', () => {
  it('calls end\'s callback once the response finished, and takes a write of nothing, with faults and without', async () => {
    for (const faults of [undefined, new WatchFaults([parseInjectSpec('hide-delete:demo/nobody')])]) {
      let finished = false;
      const r = await tapped('application/json', (res) => {
        res.write(lineOf('ADDED', 'a', '1'));
        res.write(Buffer.alloc(0));
        res.write('', () => {});
        res.end(() => { finished = true; });
      }, faults);
      for (let i = 0; i < 200 && !finished; i++) await new Promise((t) => setTimeout(t, 10));
      expect(finished).toBe(true);
      expect(rvsOf(r.received.toString('utf8'))).toEqual(['ADDED@1']);
      expect(r.closed).toBe('server');
      server!.close();
    }
  });
  it('tells the writer to wait for drain once the client is behind, and not before, with faults and without', async () => {
    // Far more than a response's buffer (16 KiB): http holds a turn's writes back (corked) until the next turn, so
    // written in one turn it is still waiting, whatever the machine.
    const big = Buffer.from(Array.from({ length: 64 }, (_, i) => `${JSON.stringify({ type: 'ADDED', object: { ...configMap(`n${i}`, String(i + 1)), data: { note: 'x'.repeat(4000) } } })}\n`).join(''));
    for (const faults of [undefined, new WatchFaults([parseInjectSpec('hide-delete:demo/nobody')])]) {
      const answers: boolean[] = [];
      const r = await tapped('application/json', (res) => {
        answers.push(res.write('{"type":"ADDED","object":'));  // the start of a line, kept for its end
        answers.push(res.write(JSON.stringify(configMap('a', '1'))));  // still no line end
        answers.push(res.write(Buffer.concat([Buffer.from('}\n'), big])));
        answers.push(res.write('{"type":'));  // behind now: a new line's start
        answers.push(res.write('"ADDED"'));  // and the rest of it
        res.end(`,"object":${JSON.stringify(configMap('c', '9'))}}\n`);
      }, faults);
      expect(r.seen.length).toBe(66);
      expect(answers, faults ? 'faults' : 'no faults').toEqual([true, true, false, false, false]);
      server!.close();
    }
  });
});
