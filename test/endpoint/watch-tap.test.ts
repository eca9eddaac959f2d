import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScannedEvent } from '../../src/endpoint/body-scan.js';
import { tapWatch } from '../../src/endpoint/watch-tap.js';
import { parseInjectSpec } from '../../src/faults/inject-spec.js';
import { WatchFaults } from '../../src/faults/watch-faults.js';

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
