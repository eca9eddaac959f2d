// decodeBody reads a body for the trace in the medium its Content-Type names (JSON, Kubernetes protobuf, CBOR), and
// gives nothing, never an error, for what is no object or cannot be read: the bytes are forwarded either way.
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/endpoint/body-decode.js';
import { encodeCbor } from '../../src/sim/cbor-wire.js';
import { jsonToProtobuf } from '../../src/wire/protobuf/from-json.js';

const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', namespace: 'd', resourceVersion: '3' }, data: { a: 'b' } };

describe('decodeBody', () => {
  it('reads JSON with any type or none, protobuf by its type in any case, CBOR by its type', () => {
    const json = Buffer.from(JSON.stringify(cm));
    expect(decodeBody(json, 'application/json')).toEqual(cm);
    expect(decodeBody(json, undefined)).toEqual(cm);
    expect(decodeBody(json, 'application/merge-patch+json')).toEqual(cm);
    const pb = jsonToProtobuf(cm)!;
    expect(decodeBody(pb, 'application/vnd.kubernetes.protobuf')).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } });
    expect(decodeBody(pb, 'Application/VND.Kubernetes.PROTOBUF')).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });
    expect(decodeBody(Buffer.from(encodeCbor(cm)), 'application/cbor')).toEqual(cm);
  });

  it('reads protobuf only under kube\'s protobuf media type: a JSON type that merely mentions protobuf is JSON', () => {
    const json = Buffer.from(JSON.stringify(cm));
    expect(decodeBody(json, 'application/json; note=protobuf')).toEqual(cm);
    expect(decodeBody(json, 'application/x-protobuf-ish+json')).toEqual(cm);
    expect(decodeBody(jsonToProtobuf(cm)!, 'application/vnd.kubernetes.protobuf; charset=utf-8')).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });
  });

  it('gives nothing for no body, an empty one, a value that is no object, or bytes that do not decode', () => {
    expect(decodeBody(undefined, 'application/json')).toBeUndefined();
    expect(decodeBody(Buffer.alloc(0), 'application/json')).toBeUndefined();
    for (const text of ['[1,2]', 'null', '5', '"s"', 'true', '{not json']) expect(decodeBody(Buffer.from(text), 'application/json'), text).toBeUndefined();
    expect(decodeBody(Buffer.from('{"a":1}'), 'application/vnd.kubernetes.protobuf')).toBeUndefined();
    expect(decodeBody(Buffer.from([0xff, 0x00]), 'application/cbor')).toBeUndefined();
    expect(decodeBody(Buffer.from(encodeCbor([1, 2])), 'application/cbor')).toBeUndefined();
  });
});
