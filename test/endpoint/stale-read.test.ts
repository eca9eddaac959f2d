// Under --exec, a write whose base resourceVersion is older than the controller's own previous write of that key is a
// `stale-read` record (it read a cache that had not yet seen its own write, KEP-5647), and the write record of the
// 409 it gets says staleRead= (the own write it missed).
import { describe, expect, it } from 'vitest';
import { ClientSession } from '../../src/endpoint/client-session.js';
import { requestInfo } from '../../src/endpoint/request-info.js';
import { WireTrace } from '../../src/endpoint/wire-trace.js';
import type { CapturedResponse } from '../../src/endpoint/response-capture.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';

const cm = (rv: string) => Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c1', namespace: 'default', resourceVersion: rv }, data: { a: rv } }));
const answer = (status: number, body: object): CapturedResponse => {
  const b = Buffer.from(JSON.stringify(body));
  return { status, contentType: 'application/json', bytes: b.length, chunks: [b], body: b } as unknown as CapturedResponse;
};
const conflict = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Conflict', code: 409, message: 'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again' };

function setup() {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  return { trace: new WireTrace(tracer), s: new ClientSession('manager', 'manager/v0.0.0'), records };
}

describe('stale-read under --exec', () => {
  const update = requestInfo('PUT', '/api/v1/namespaces/default/configmaps/c1');

  it('an update from an older resourceVersion than the client\'s own stored write of the key is a stale-read, and its 409 write record says so', () => {
    const { trace, s, records } = setup();
    // The controller's own update was stored at resourceVersion 12 (overlay or apply mode).
    trace.write(s, update, answer(200, JSON.parse(cm('12').toString())), { mode: 'overlay', body: cm('10'), contentType: 'application/json', base: undefined, loopThreshold: 99 });
    // Its next update of the key starts from resourceVersion 10: its cache had not seen its own write.
    trace.staleWrite(s, update, cm('10'), 'application/json');
    const stale = records.filter((r) => r.op === 'stale-read');
    expect(stale).toEqual([
      expect.objectContaining({ stage: 'endpoint', key: 'default/c1', rv: '10', client: 'manager', ownWrite: '12', note: expect.stringMatching(/older than its own earlier write of it \(resourceVersion 12\).*a 409 Conflict follows$/) }),
    ]);
    trace.write(s, update, answer(409, conflict), { mode: 'overlay', body: cm('10'), contentType: 'application/json', base: undefined, loopThreshold: 99 });
    expect(records.filter((r) => r.op === 'write').at(-1)).toMatchObject({ code: 409, staleRead: '12' });
  });

  it('an update from the client\'s own latest write, or newer, is no stale-read', () => {
    const { trace, s, records } = setup();
    trace.write(s, update, answer(200, JSON.parse(cm('12').toString())), { mode: 'apply', body: cm('10'), contentType: 'application/json', base: undefined, loopThreshold: 99 });
    trace.staleWrite(s, update, cm('12'), 'application/json');
    trace.staleWrite(s, update, cm('15'), 'application/json');
    expect(records.filter((r) => r.op === 'stale-read')).toEqual([]);
    trace.write(s, update, answer(200, JSON.parse(cm('16').toString())), { mode: 'apply', body: cm('15'), contentType: 'application/json', base: undefined, loopThreshold: 99 });
    expect(records.filter((r) => r.op === 'write').at(-1)).not.toHaveProperty('staleRead');
  });
});
