// The records a picture is drawn from (trace-rows.ts): what a kept record holds (never an object or a body: a trace
// file must not carry Secret data), and the small readers every picture shares.
import { describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { eventType, isChangeEvent, isWrite, objectKeyOf, slimRow, TraceCollector, writeCode, writeFields, writeOk, writerOf, type TraceRow } from '../../src/trace-export/trace-rows.js';

const row = (r: Partial<TraceRow>): TraceRow => ({ time: 1, id: 1, stage: 'endpoint', op: 'write', ...r }) as TraceRow;

describe('a kept record', () => {
  it('leaves out objects and bodies, keeps what a write changed, errors as their message, bigints as text', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, data: { password: 'aHVudGVyMg==' } };
    const changed = { ...secret, data: { password: 'c2VjcmV0' }, metadata: { ...secret.metadata, labels: { a: 'b' } } };
    const kept = slimRow({ time: 5, stage: 'endpoint', op: 'write', key: 'ns/s', old: secret, new: changed, object: secret, obj: secret, oldObject: secret, newObject: changed, request: { body: secret }, body: 'x', answer: secret, error: new Error('denied'), size: 10n, gone: undefined } as unknown as TraceRecord);
    expect(kept).toEqual({ time: 5, stage: 'endpoint', op: 'write', key: 'ns/s', error: 'denied', size: '10', changed: ['metadata.labels', 'data.password'] });
    expect(JSON.stringify(kept)).not.toContain('aHVudGVyMg');
    // A write that says what it changed keeps that; other records never get a diff.
    expect(slimRow({ time: 1, stage: 'reconcile', op: 'write', key: 'ns/s', changed: ['spec.x'], old: secret, new: changed } as unknown as TraceRecord).changed).toEqual(['spec.x']);
    expect(slimRow({ time: 1, stage: 'indexer', op: 'update', key: 'ns/s', old: secret, new: changed } as unknown as TraceRecord)).toEqual({ time: 1, stage: 'indexer', op: 'update', key: 'ns/s' });
    expect(slimRow({ time: 1, stage: 'endpoint', op: 'write', key: 'ns/s', old: [secret], new: changed } as unknown as TraceRecord).changed).toBeUndefined();
    expect(slimRow({ time: 1, stage: 'endpoint', op: 'write', key: 'ns/s', old: null, new: changed } as unknown as TraceRecord).changed).toBeUndefined();
  });

  it('the collector keeps each record a tracer emits, with its id, until stopped', () => {
    const tracer = new Tracer();
    const collector = new TraceCollector(tracer);
    tracer.emit({ time: 1, stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '1' } as TraceRecord);
    const rows = collector.stop();
    tracer.emit({ time: 2, stage: 'watch', op: 'MODIFIED', key: 'ns/a', rv: '2' } as TraceRecord);
    expect(rows).toEqual([{ time: 1, stage: 'watch', op: 'ADDED', key: 'ns/a', rv: '1', id: 1 }]);
    expect(collector.dropped).toBe(0);
  });
});

describe('what every picture reads of a record', () => {
  it('writes: which records, whose, of which object, with which fields, and whether they went through', () => {
    expect([row({}), row({ stage: 'reconcile' }), row({ stage: 'http' }), row({ op: 'watch' })].map(isWrite)).toEqual([true, true, false, false]);
    expect(objectKeyOf(row({ stage: 'reconcile', key: 'ns/parent', target: 'ns/child' }))).toBe('ns/child');
    expect(objectKeyOf(row({ stage: 'endpoint', key: 'ns/a', target: 'ns/child' }))).toBe('ns/a');
    expect(objectKeyOf(row({ stage: 'reconcile', op: 'start', key: 'ns/a', target: 'ns/child' }))).toBe('ns/a');
    expect([row({ client: 'k', controller: 'c' }), row({ controller: 'c' }), row({})].map(writerOf)).toEqual(['k', 'c', 'controller']);
    expect(writeFields(row({ changed: ['a', 'b'] }))).toEqual(['a', 'b']);
    expect(writeFields(row({ diff: [{ path: 'spec.x', old: 1, new: 2 }, { old: 1 }, { path: 'status' }] }))).toEqual(['spec.x', 'status']);
    expect(writeFields(row({ changed: 'spec.x' }))).toEqual([]);
    expect([200, 201, 299, 199, 300, 409].map((code) => writeOk(row({ code })))).toEqual([true, true, true, false, false, false]);
    expect(writeOk(row({}))).toBe(true);
    expect(writeOk(row({ code: 200, error: 'x' }))).toBe(false);
    expect(writeCode(row({ code: 201, status: 500 }))).toBe(201);
    expect(writeCode(row({ status: 422 }))).toBe(422);
    expect(writeCode(row({ status: { code: 409, reason: 'Conflict' } }))).toBe(409);
    expect(writeCode(row({ status: { reason: 'x' } }))).toBeUndefined();
    expect(writeCode(row({ status: null }))).toBeUndefined();
  });

  it('change events: the informer\'s and those a client was sent, by type', () => {
    const events = [row({ stage: 'watch', op: 'ADDED' }), row({ stage: 'watch', op: 'MODIFIED' }), row({ stage: 'watch', op: 'DELETED' }), row({ stage: 'watch', op: 'BOOKMARK' }), row({ stage: 'watch', op: 'ERROR' }),
      row({ op: 'watch', event: 'ADDED' }), row({ op: 'watch', event: 'MODIFIED' }), row({ op: 'watch', event: 'DELETED' }), row({ op: 'watch', event: 'start' }), row({ op: 'relist', event: 'ADDED' }), row({ stage: 'fifo', op: 'ADDED' })];
    expect(events.map(isChangeEvent)).toEqual([true, true, true, false, false, true, true, true, false, false, false]);
    expect(eventType(row({ stage: 'watch', op: 'DELETED', event: 'x' }))).toBe('DELETED');
    expect(eventType(row({ op: 'watch', event: 'MODIFIED' }))).toBe('MODIFIED');
  });
});
