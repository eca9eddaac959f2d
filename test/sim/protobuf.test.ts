// The sim's protobuf request decoding: the wire reader, schema-driven conversion to JSON, and the HTTP mapping
// (201/200 JSON answers, 400 for malformed bodies, 415 for kinds and fields without a schema).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { MalformedProtobufError, UnsupportedProtobufError } from '../../src/wire/protobuf/errors.js';
import { allMessageSchemas } from '../../src/wire/protobuf/schema.js';
import { protobufToJson } from '../../src/wire/protobuf/to-json.js';
import { toInt32, toInt64, WireReader, WireType } from '../../src/wire/protobuf/wire.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

// A hand encoder for test bodies: each helper returns the bytes of one field.
type Bytes = number[];
function varint(v: bigint | number): Bytes {
  let x = BigInt.asUintN(64, BigInt(v));
  const out: Bytes = [];
  do {
    const b = Number(x & 0x7fn);
    x >>= 7n;
    out.push(x ? b | 0x80 : b);
  } while (x);
  return out;
}
const key = (field: number, wireType: number): Bytes => varint((field << 3) | wireType);
const int = (field: number, v: bigint | number): Bytes => [...key(field, WireType.Varint), ...varint(v)];
const bytes = (field: number, b: Bytes | Uint8Array): Bytes => [...key(field, WireType.LengthDelimited), ...varint(b.length), ...b];
const str = (field: number, s: string): Bytes => bytes(field, Buffer.from(s, 'utf8'));
const msg = (field: number, ...parts: Bytes[]): Bytes => bytes(field, parts.flat());
const entry = (field: number, k: string, v: string): Bytes => msg(field, str(1, k), str(2, v));
const envelope = (apiVersion: string, kind: string, ...fields: Bytes[]): Buffer =>
  Buffer.from([0x6b, 0x38, 0x73, 0x00, ...msg(1, str(1, apiVersion), str(2, kind)), ...bytes(2, fields.flat())]);
const meta = (name: string, ...more: Bytes[]): Bytes => msg(1, str(1, name), ...more);

function errorOf(f: () => unknown): Error {
  try { f(); } catch (err) { return err as Error; }
  throw new Error('expected an error');
}

describe('protobuf wire reader', () => {
  it('reads varints beyond 2^31 and 2^53 exactly, up to the full 64 bits', () => {
    for (const v of [0n, 300n, 2n ** 31n + 7n, 2n ** 53n + 1n, 2n ** 64n - 1n]) {
      expect(new WireReader(Uint8Array.from(varint(v))).varint()).toBe(v);
    }
  });

  it('reinterprets 10-byte sign-extended varints as negative int32 and int64', () => {
    const neg = (v: number) => new WireReader(Uint8Array.from(varint(v))).varint();
    expect(varint(-1)).toHaveLength(10);
    expect(toInt32(neg(-1))).toBe(-1);
    expect(toInt32(neg(-2147483648))).toBe(-2147483648);
    expect(toInt64(neg(-5))).toBe(-5n);
  });

  it('skips every scalar wire type, fixed32 and fixed64 included', () => {
    const r = new WireReader(Uint8Array.from([...key(1, WireType.Fixed32), 1, 2, 3, 4, ...key(2, WireType.Fixed64), 1, 2, 3, 4, 5, 6, 7, 8, ...str(3, 'x'), ...int(4, 9)]));
    const seen: number[] = [];
    while (!r.done()) { const t = r.tag(); seen.push(t.field); r.skip(t.wireType); }
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('rejects truncated and malformed input with the offset', () => {
    const bad: [Bytes, RegExp][] = [
      [[0x80, 0x80], /byte 0: truncated varint/],
      [[...key(1, 2), 5, 1, 2], /length 5 runs past the end/],
      [[...key(1, WireType.Fixed64), 1, 2], /truncated 64-bit fixed value/],
      [[...key(1, WireType.StartGroup)], /unsupported wire type 3/],
      [[0x00], /invalid field number 0/],
      [Array(11).fill(0xff), /varint/],
    ];
    for (const [b, message] of bad) {
      const err = errorOf(() => { const r = new WireReader(Uint8Array.from(b)); const t = r.tag(); r.skip(t.wireType); });
      expect(err).toBeInstanceOf(MalformedProtobufError);
      expect(err.message).toMatch(message);
    }
  });
});

describe('protobuf to JSON', () => {
  it('loads every schema (a type name that resolves nowhere fails at import)', () => {
    const names = [...allMessageSchemas()].map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['ObjectMeta', 'Namespace', 'ConfigMap', 'Secret', 'Service', 'Pod', 'Container', 'Deployment', 'ReplicaSet', 'DeleteOptions']));
  });

  it('decodes the body kubectl 1.32 sends for `create deployment web --image=nginx --replicas=3 --port=80`', () => {
    const body = Buffer.from('azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50ErgBCh8KA3dlYhIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEoYBCAMSDAoKCgNhcHASA3dlYhpsChwKABIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEkwSLgoFbmdpbngSBW5naW54KgAyCgoAEAAYUCIAKgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAYACAAKAA4ABoAIgA=', 'base64');
    // Exactly kubectl's own `--dry-run=client -o json` rendering of the object.
    expect(protobufToJson(body)).toEqual({
      kind: 'Deployment', apiVersion: 'apps/v1',
      metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('converts nested messages, maps, pointers, big and negative numbers, IntOrString, Quantity, Time and inline fields', () => {
    const container = msg(2,
      str(1, 'app'), str(2, 'img:1'), str(3, 'sh'), str(3, '-c'),
      msg(6, str(1, 'http'), int(3, 8080), str(4, 'TCP')),
      msg(7, str(1, 'MODE'), str(2, 'fast')),
      msg(7, str(1, 'POD'), msg(3, msg(1, str(2, 'metadata.name')))),
      msg(8, msg(1, str(1, 'cpu'), msg(2, str(1, '500m'))), msg(2, str(1, 'memory'), msg(2, str(1, '64Mi')))),
      msg(9, str(1, 'data'), str(3, '/data')),
      msg(10, msg(1, msg(2, str(1, '/healthz'), msg(2, int(1, 1), str(3, 'http')))), int(2, 0), int(4, 10)),
      str(13, '/dev/termination-log'), str(14, 'IfNotPresent'), str(20, 'File'),
    );
    const pod = envelope('v1', 'Pod',
      meta('p', str(3, 'ns'), msg(8, int(1, 1_700_000_000)), entry(11, 'app', 'web'), entry(11, 'empty', ''), entry(12, '__proto__', 'x')),
      msg(2,
        msg(1, str(1, 'cfg'), msg(2, msg(19, msg(1, str(1, 'settings')), int(3, 0o644)))),
        container,
        int(5, 2n ** 40n), // activeDeadlineSeconds: int64 beyond 2^31
        int(25, -5), // priority: a negative int32
        msg(14, bytes(4, [...varint(1000), ...varint(2n ** 33n)])), // supplementalGroups, packed
        int(21, 0), // automountServiceAccountToken: a pointer, so false is kept
        str(3, ''), // restartPolicy: omitempty, so "" is dropped
      ),
      msg(3, str(1, 'Running'), msg(7, int(1, 86_400))),
    );
    const json = protobufToJson(pod);
    expect(JSON.parse(JSON.stringify(json))).toEqual({
      kind: 'Pod', apiVersion: 'v1',
      metadata: { name: 'p', namespace: 'ns', creationTimestamp: '2023-11-14T22:13:20Z', labels: { app: 'web', empty: '' }, annotations: { ['__proto__']: 'x' } },
      spec: {
        volumes: [{ name: 'cfg', configMap: { name: 'settings', defaultMode: 0o644 } }],
        containers: [{
          name: 'app', image: 'img:1', command: ['sh', '-c'],
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'fast' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
          livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
          terminationMessagePath: '/dev/termination-log', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File',
        }],
        activeDeadlineSeconds: 2 ** 40,
        securityContext: { supplementalGroups: [1000, 2 ** 33] },
        automountServiceAccountToken: false,
        priority: -5,
      },
      status: { phase: 'Running', startTime: '1970-01-02T00:00:00Z' },
    });
    // A map key such as __proto__ is plain data.
    expect(Object.getPrototypeOf((json.metadata as { annotations: object }).annotations)).toBe(Object.prototype);
  });

  it('writes bytes as base64 (Secret data, ConfigMap binaryData) and keeps the Secret type', () => {
    const secret = protobufToJson(envelope('v1', 'Secret', meta('s'), msg(2, str(1, 'bin'), bytes(2, [0, 255, 1])), str(3, 'Opaque')));
    expect(secret).toEqual({ kind: 'Secret', apiVersion: 'v1', metadata: { name: 's' }, data: { bin: 'AP8B' }, type: 'Opaque' });
    const cm = protobufToJson(envelope('v1', 'ConfigMap', meta('c'), entry(2, 'k', 'v'), msg(3, str(1, 'b'), bytes(2, [104, 105])), int(4, 1)));
    expect(cm).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { k: 'v' }, binaryData: { b: 'aGk=' }, immutable: true });
  });

  it('keeps zero values Go would marshal (pointers, fields without omitempty) and merges a message sent in pieces', () => {
    const svc = protobufToJson(envelope('v1', 'Service', meta('s'),
      msg(2, msg(1, int(3, 0), msg(4, int(1, 1), str(3, 'web'))), str(4, 'ClusterIP')),
      msg(2, str(7, 'None')), // a second spec piece: merged into the first, not replacing it
    ));
    expect(svc.spec).toEqual({ ports: [{ port: 0, targetPort: 'web' }], type: 'ClusterIP', sessionAffinity: 'None' });
    const dep = protobufToJson(envelope('apps/v1', 'Deployment', meta('d'), msg(2, int(1, 0), msg(4, str(1, 'RollingUpdate'), msg(2, msg(1, int(1, 1), str(3, '25%')), msg(2, int(2, 2)))))));
    expect(dep.spec).toEqual({ replicas: 0, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 2 } } });
  });

  it('decodes DeleteOptions under any group version', () => {
    const opts = protobufToJson(envelope('apps/v1', 'DeleteOptions', int(1, 0), msg(2, str(1, 'u-1')), str(4, 'Foreground'), str(5, 'All')));
    expect(opts).toEqual({ kind: 'DeleteOptions', apiVersion: 'apps/v1', gracePeriodSeconds: 0, preconditions: { uid: 'u-1' }, propagationPolicy: 'Foreground', dryRun: ['All'] });
  });

  it('refuses a field the schema does not know (415), naming every such field, its message type and where it is', () => {
    const err = errorOf(() => protobufToJson(envelope('v1', 'Pod', meta('p'), msg(2, msg(2, str(1, 'c'), int(99, 1), str(98, 'x'))))));
    expect(err).toBeInstanceOf(UnsupportedProtobufError);
    expect(err.message).toBe('Pod.spec.containers[0] (k8s.io.api.core.v1.Container) has fields 99 (wire type 0), 98 (wire type 2) that the sim has no schema for; send this object as JSON instead');
  });

  it('refuses kinds without a schema (415) and in-tree volume plugins left out of the schema', () => {
    const ep = errorOf(() => protobufToJson(envelope('v1', 'Endpoints', meta('ep'))));
    expect(ep).toBeInstanceOf(UnsupportedProtobufError);
    expect(ep.message).toMatch(/^the sim cannot decode protobuf bodies of kind "Endpoints" in "v1"; it decodes v1 ConfigMap, .*apps\/v1 Deployment/);
    const gce = errorOf(() => protobufToJson(envelope('v1', 'Pod', meta('p'), msg(2, msg(1, str(1, 'disk'), msg(2, msg(3, str(1, 'pd'))))))));
    expect(gce).toBeInstanceOf(UnsupportedProtobufError);
    expect(gce.message).toContain('Pod.spec.volumes[0] (k8s.io.api.core.v1.VolumeSource) has field 3 (wire type 2)');
  });

  it('answers malformed bodies with a MalformedProtobufError naming where decoding stopped', () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('{"kind":"Pod"}'), /does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/],
      [envelope('v1', 'Pod', meta('p'), msg(2, msg(2, str(1, 'c')))).subarray(0, -3), /malformed protobuf in runtime.Unknown at byte \d+: length \d+ runs past the end/],
      [envelope('v1', 'Pod', meta('p'), [...key(2, 2), 3, ...key(2, 2), 9, 1]), /malformed protobuf in Pod.spec \(k8s.io.api.core.v1.PodSpec\) at byte 1: length 9 runs past the end of the data \(1 byte left\)/],
      [envelope('v1', 'Pod', meta('p'), msg(2, int(2, 5))), /Pod.spec .* field 2 \(containers\) has wire type 0, which a repeated Container never has/],
      [envelope('v1', '', meta('p')), /Object 'Kind' is missing/],
      [envelope('v1', 'Service', meta('s'), msg(2, msg(1, msg(4, int(1, 7))))), /IntOrString type 7/],
    ];
    for (const [body, message] of cases) {
      const err = errorOf(() => protobufToJson(body));
      expect(err, String(message)).toBeInstanceOf(MalformedProtobufError);
      expect(err.message).toMatch(message);
    }
    const huge = errorOf(() => protobufToJson(envelope('v1', 'Pod', meta('p', int(7, 2n ** 60n)))));
    expect(huge).toBeInstanceOf(UnsupportedProtobufError);
    expect(huge.message).toContain('Pod.metadata.generation: int64 value 1152921504606846976 is beyond');
  });
});

describe('protobuf request bodies over HTTP', () => {
  let sim: SimServer;
  beforeAll(async () => { sim = await startSimServer(); });
  afterAll(() => sim.close());

  function send(method: string, path: string, body: Buffer, contentType = 'application/vnd.kubernetes.protobuf'): Promise<{ status: number; contentType?: string; json: any }> {
    return new Promise((resolve, reject) => {
      const req = request(sim.url + path, { method, headers: { 'Content-Type': contentType, 'Content-Length': body.length, Accept: 'application/vnd.kubernetes.protobuf,application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        // The client prefers protobuf, so kube answers in it (errors too); src/wire's decoder reads it back.
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          try {
            resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], json: res.headers['content-type'] === 'application/vnd.kubernetes.protobuf' ? protobufToJson(bytes) : JSON.parse(bytes.toString('utf8')) });
          } catch (err) { reject(err as Error); }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }
  const CM = '/api/v1/namespaces/default/configmaps';

  it('creates (POST) and updates (PUT) from protobuf, answering protobuf as the Accept prefers', async () => {
    const created = await send('POST', CM, envelope('v1', 'ConfigMap', meta('pb'), entry(2, 'a', 'b')));
    expect(created.status).toBe(201);
    expect(created.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(created.json).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'pb', namespace: 'default' }, data: { a: 'b' } });
    expect(created.json.metadata).toEqual(expect.objectContaining({ uid: expect.any(String), resourceVersion: expect.any(String), creationTimestamp: expect.stringMatching(/Z$/) }));
    const rv = created.json.metadata.resourceVersion as string;
    const updated = await send('PUT', `${CM}/pb`, envelope('v1', 'ConfigMap', meta('pb', str(6, rv)), entry(2, 'a', 'c')));
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ a: 'c' });
    expect(Number(updated.json.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    const stale = await send('PUT', `${CM}/pb`, envelope('v1', 'ConfigMap', meta('pb', str(6, rv)), entry(2, 'a', 'd')));
    expect(stale.status).toBe(409);
  });

  it('answers 415 UnsupportedMediaType for what it cannot decode and 400 BadRequest for malformed bodies', async () => {
    const unknown = await send('POST', CM, envelope('v1', 'ConfigMap', meta('x'), int(42, 1)));
    expect(unknown.status).toBe(415);
    expect(unknown.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(unknown.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'UnsupportedMediaType', code: 415,
      message: 'the sim could not decode this protobuf body: ConfigMap (k8s.io.api.core.v1.ConfigMap) has field 42 (wire type 0) that the sim has no schema for; send this object as JSON instead',
    });
    const truncated = await send('POST', CM, envelope('v1', 'ConfigMap', meta('x')).subarray(0, -2));
    expect(truncated.status).toBe(400);
    expect(truncated.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(truncated.json.message).toMatch(/^malformed protobuf in runtime.Unknown/);
    const text = await send('POST', CM, Buffer.from('x'), 'text/plain');
    expect(text.status).toBe(415);
    // kube's NegotiateInputSerializerForMediaType: the accepted types only (no echo of the type sent).
    expect(text.json.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });

  it('reads protobuf DeleteOptions (preconditions, dryRun) on DELETE', async () => {
    await send('POST', CM, envelope('v1', 'ConfigMap', meta('gone')));
    const wrongUid = await send('DELETE', `${CM}/gone`, envelope('v1', 'DeleteOptions', msg(2, str(1, 'nope'))));
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json.message).toContain('Precondition failed: UID in precondition: nope');
    const dry = await send('DELETE', `${CM}/gone`, envelope('v1', 'DeleteOptions', str(5, 'All')));
    expect(dry.status).toBe(200);
    expect(sim.api.get({ group: '', version: 'v1', resource: 'configmaps' }, 'default', 'gone')).toBeDefined();
  });
});
