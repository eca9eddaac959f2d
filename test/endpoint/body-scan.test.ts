import { describe, expect, it } from 'vitest';
import { decodedWatchEvent, isScannedType, listFacts, listHeadFacts, readBody, scanWatchEvent } from '../../src/endpoint/body-scan.js';
import { encodeCbor } from '../../src/sim/cbor-wire.js';
import { jsonToProtobuf } from '../../src/wire/protobuf/from-json.js';
import { closeOf, KnownStrings, members, STOP, valueEnd } from '../../src/endpoint/json-scan.js';

const pod = (name: string, rv: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Pod', apiVersion: 'v1',
  metadata: { name, namespace: 'demo', resourceVersion: rv, uid: `uid-${name}`, managedFields: [{ manager: 'x', fieldsV1: { 'f:spec': {} } }], ...extra },
  spec: { containers: [{ name: 'c', image: 'nginx', args: ['a "quoted" arg', 'back\\slash', '{not an object}', '[nor an array]'] }], priority: -1.5e3, enabled: true, none: null },
  status: { phase: 'Running', message: 'héllo ☃ \u0001' },
});

describe('json-scan', () => {
  it('finds the end of every kind of value as JSON.parse reads it', () => {
    const doc = { a: 'x\\"}]', b: [1, -2.5e-3, true, false, null, { c: ['"', '\\'] }], d: {}, e: [], f: '☃' };
    const b = Buffer.from(` ${JSON.stringify(doc, null, 2)}\n`);
    const start = b.indexOf('{');
    const end = closeOf(b, start + 1, 1);
    expect(JSON.parse(b.toString('utf8', start, end))).toEqual(doc);
    const seen: Record<string, unknown> = {};
    expect(members(b, start, (k, s) => { const e = valueEnd(b, s); seen[k] = JSON.parse(b.toString('utf8', s, e)); return e; })).toBe(end);
    expect(seen).toEqual(doc);
    const arr = Buffer.from('[ 1 , "two" , [3] , {"four":4} ]');
    expect(JSON.parse(arr.toString('utf8', 0, valueEnd(arr, 0)))).toEqual([1, 'two', [3], { four: 4 }]);
    expect(valueEnd(Buffer.from('123,'), 0)).toBe(3);
  });

  it('stops a member walk when asked, and throws on a body cut short', () => {
    const b = Buffer.from('{"a":1,"b":2,"c":3}');
    const keys: string[] = [];
    expect(members(b, 0, (k) => { keys.push(k); return k === 'b' ? STOP : undefined; })).toBe(STOP);
    expect(keys).toEqual(['a', 'b']);
    expect(() => closeOf(Buffer.from('{"a":"b'), 1, 1)).toThrow(/unterminated/);
  });
});

/** A body as it crosses the endpoint: in chunks, cut anywhere (here every 7 bytes). */
const chunked = (text: string) => {
  const b = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += 7) out.push(b.subarray(i, i + 7));
  return out;
};

describe('members with the names it reads', () => {
  it('visits only those, each by its name however it is escaped, and skips the rest unread', () => {
    const b = Buffer.from('{"kind":"Pod","n\\u0061me":"a","nam":"x","names":"y","name\\"":"z","uid":"u","rest":{"name":"inner"}}');
    const seen: [string, unknown][] = [];
    members(b, 0, (k, s) => { const e = valueEnd(b, s); seen.push([k, JSON.parse(b.toString('utf8', s, e))]); return e; }, new KnownStrings(['name', 'uid']));
    expect(seen).toEqual([['name', 'a'], ['uid', 'u']]);
  });

  it('reads the identity of a watch line whose metadata names are escaped, as JSON.parse would', () => {
    const line = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: pod('p', '7') }).replace('"name":"p"', '"n\\u0061me":"p"').replace('"type"', '"typ\\u0065"')}\n`);
    expect(JSON.parse(line.toString()).object.metadata.name).toBe('p');
    expect(scanWatchEvent(line)).toMatchObject({ type: 'ADDED', key: 'demo/p', rv: '7' });
  });
});

describe('readBody', () => {
  it('reads a list page: its metadata, and each item\'s identity, decoded whole only when asked', () => {
    const items = [pod('a', '10'), pod('b\\"odd', '11', { ownerReferences: [{ uid: 'rs-1' }] }), { kind: 'Node', metadata: { name: 'n1', resourceVersion: '3' } }];
    const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '12', continue: 'tok', remainingItemCount: 7 }, items };
    const body = readBody(chunked(JSON.stringify(list)), 'application/json')!;
    expect(body).toMatchObject({ kind: 'PodList', resourceVersion: '12', continue: 'tok', remainingItemCount: 7 });
    expect(body.items!.map((o) => [o.key, o.rv, o.uid])).toEqual([['demo/a', '10', 'uid-a'], ['demo/b\\"odd', '11', 'uid-b\\"odd'], ['n1', '3', undefined]]);
    expect(body.items![1].owners).toEqual(['rs-1']);
    expect(body.items![0].raw()).toEqual(items[0]);
    const { managedFields: _m, ...meta } = pod('a', '10').metadata;
    expect(body.items![0].object()).toEqual({ ...pod('a', '10'), metadata: meta });
  });

  it('reads a list item only up to its identity: what follows it in the metadata is read only when asked', () => {
    // Labels that are not JSON: a scan that went past the identity would give up on the whole page's items.
    const item = '{"metadata":{"name":"a","namespace":"demo","uid":"uid-a","resourceVersion":"7","labels":{"x":?},"ownerReferences":[{"uid":"rs-1"}]}}';
    const body = readBody(chunked(`{"kind":"PodList","metadata":{"resourceVersion":"8"},"items":[${item}]}`), 'application/json')!;
    expect(body.items!.map((o) => [o.key, o.rv, o.uid])).toEqual([['demo/a', '7', 'uid-a']]);
    // Owners come from the object when asked: here it is not JSON, so asking throws rather than answering wrong.
    expect(() => body.items![0].owners).toThrow(SyntaxError);
    const good = readBody(chunked(`{"kind":"PodList","metadata":{},"items":[${item.replace('?', '1')}]}`), 'application/json')!;
    expect(good.items![0].owners).toEqual(['rs-1']);
  });

  it('reads an empty list, a Table\'s rows, a single object, and gives up quietly on what is not JSON', () => {
    expect(readBody(chunked('{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":null}'), 'application/json')).toMatchObject({ items: [], resourceVersion: '5' });
    expect(readBody(chunked('{"kind":"Table","metadata":{"resourceVersion":"5"},"columnDefinitions":[],"rows":[{"cells":[]},{"cells":[]}]}'), 'application/json')).toMatchObject({ kind: 'Table', rows: 2 });
    expect(readBody(chunked('{"kind":"Table","rows":[]}'), 'application/json')!.items).toBeUndefined();
    const one = readBody(chunked(JSON.stringify(pod('x', '9'))), 'application/json')!;
    expect(one.object?.key).toBe('demo/x');
    expect(one.items).toBeUndefined();
    expect(readBody(chunked('{"kind":"PodList","items":[{"metadata":'), 'application/json')).toBeUndefined();
    expect(readBody(chunked('not json'), 'text/plain')).toBeUndefined();
  });
});

describe('scanWatchEvent', () => {
  it('reads the type and the object\'s identity of a watch line, and an ERROR\'s Status', () => {
    const e = scanWatchEvent(Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object: pod('a', '20', { ownerReferences: [{ uid: 'o1' }, { uid: 'o2' }] }) })}\r\n`));
    expect(e).toMatchObject({ type: 'MODIFIED', key: 'demo/a', rv: '20' });
    expect(e.object!.owners).toEqual(['o1', 'o2']);
    // Owner references written after managedFields (not kube's order) are still found, from the object itself.
    const late = { type: 'MODIFIED', object: { metadata: { name: 'b', namespace: 'demo', uid: 'u', resourceVersion: '21', managedFields: [{ manager: 'm' }], ownerReferences: [{ uid: 'o3' }] } } };
    const lateLine = `${JSON.stringify(late)}\n`;
    const lateEvent = scanWatchEvent(Buffer.from(`xx${lateLine}yy`), 2, 2 + lateLine.length);
    expect(lateEvent).toMatchObject({ type: 'MODIFIED', key: 'demo/b', rv: '21' });
    expect(lateEvent.object!.owners).toEqual(['o3']);
    expect(lateEvent.object!.raw()).toEqual(late.object);
    expect(scanWatchEvent(Buffer.from('{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"30"}}}'))).toMatchObject({ type: 'BOOKMARK', key: undefined, rv: '30' });
    expect(scanWatchEvent(Buffer.from('{"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}}')).status).toMatchObject({ code: 410, message: 'too old' });
    expect(scanWatchEvent(Buffer.from('{"type":"ADDED","object":{'))).toEqual({ type: 'UNKNOWN' });
  });

  it('keys a Table watch event (kubectl get -w asks for as=Table) by its row\'s object, and says it is a Table', () => {
    // kube sends each watch event's object as a one-row Table whose row carries the object's metadata
    // (includeObject=Metadata, kubectl's default: a PartialObjectMetadata).
    const row = { cells: ['a', '1', '5s'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: 'demo', uid: 'uid-a', resourceVersion: '41' } } };
    const table = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '41' }, columnDefinitions: [{ name: 'Name', type: 'string' }], rows: [row] };
    const e = scanWatchEvent(Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object: table })}\n`));
    expect(e).toMatchObject({ type: 'MODIFIED', key: 'demo/a', rv: '41', table: true });
    expect(e.object!.uid).toBe('uid-a');
    // includeObject=None: no row object, no key.
    const bare = scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: { ...table, rows: [{ cells: ['a'] }] } })));
    expect(bare).toMatchObject({ type: 'ADDED', key: undefined, rv: '41', table: true });
  });
});

/** kube's CBOR (self-described, as the sim and kube-apiserver write it). */
const cbor = (v: unknown) => encodeCbor(v);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe('readBody of a body that is decoded whole (protobuf, CBOR)', () => {
  it('decodes whole only kube\'s protobuf and CBOR media types: a JSON type that mentions protobuf is scanned as JSON', () => {
    expect(isScannedType('application/json; note=protobuf')).toBe(true);
    expect(readBody(chunked(JSON.stringify(pod('a', '10'))), 'application/json; note=protobuf')?.object?.key).toBe('demo/a');
    for (const t of [PROTOBUF, `${PROTOBUF};stream=watch`, 'Application/VND.Kubernetes.Protobuf', 'application/cbor', 'application/cbor-seq']) expect(isScannedType(t), t).toBe(false);
  });

  it('reads a protobuf list page, cut in chunks: its metadata and each item\'s identity and owners', () => {
    const list = {
      apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '12', continue: 'tok', remainingItemCount: 7 },
      items: [
        { metadata: { name: 'a', namespace: 'demo', resourceVersion: '3', uid: 'uid-a', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'o1' }] }, data: { k: 'v' } },
        { metadata: { name: 'n1', resourceVersion: '4' } },
      ],
    };
    const b = jsonToProtobuf(list);
    const body = readBody([b.subarray(0, 5), b.subarray(5)], PROTOBUF)!;
    expect(body).toMatchObject({ kind: 'ConfigMapList', resourceVersion: '12', continue: 'tok', remainingItemCount: 7 });
    expect(body.rows).toBeUndefined();
    expect(body.object).toBeUndefined();
    expect(body.items!.map((o) => [o.key, o.rv, o.uid, o.owners])).toEqual([['demo/a', '3', 'uid-a', ['o1']], ['n1', '4', undefined, []]]);
    expect(body.items![0].raw()).toMatchObject({ data: { k: 'v' } });
  });

  it('reads a CBOR list leaving out items that are not objects, a list without metadata, a Table\'s rows and one object', () => {
    const items = [{ metadata: { name: 'a', namespace: 'demo', resourceVersion: '3' } }, null, 5, 'x', { metadata: { name: 'b', resourceVersion: '4' } }];
    const list = readBody([cbor({ kind: 'PodList', metadata: { resourceVersion: '9' }, items })], 'application/cbor')!;
    expect(list).toMatchObject({ kind: 'PodList', resourceVersion: '9' });
    expect(list.items!.map((o) => o.key)).toEqual(['demo/a', 'b']);
    // No metadata at all, and a kind that is not a string: still a list, with nothing more to say.
    const bare = readBody([cbor({ kind: 5, items: [] })], 'application/cbor')!;
    expect(bare).toEqual({ kind: undefined, resourceVersion: undefined, continue: undefined, remainingItemCount: undefined, items: [] });
    expect(readBody([cbor({ kind: 'Table', metadata: { resourceVersion: '5', continue: 'c', remainingItemCount: 2 }, rows: [{ cells: [1] }, { cells: [2] }, { cells: [3] }] })], 'application/cbor'))
      .toEqual({ kind: 'Table', resourceVersion: '5', continue: 'c', remainingItemCount: 2, rows: 3 });
    expect(readBody([cbor({ kind: 'Table', rows: [] })], 'application/cbor')).toEqual({ kind: 'Table', resourceVersion: undefined, continue: undefined, remainingItemCount: undefined, rows: 0 });
    const one = readBody([cbor({ kind: 'Pod', metadata: { name: 'x', namespace: 'demo', resourceVersion: '7', uid: 'u' } })], 'application/cbor')!;
    expect(Object.keys(one).sort()).toEqual(['kind', 'object']);
    expect(one.kind).toBe('Pod');
    expect([one.object!.key, one.object!.rv, one.object!.uid]).toEqual(['demo/x', '7', 'u']);
    const noKind = readBody([cbor({ metadata: { name: 'y' } })], 'application/cbor')!;
    expect(noKind.kind).toBeUndefined();
    expect(noKind.object!.key).toBe('y');
  });

  it('gives up quietly on a body it cannot decode, and on no body at all', () => {
    expect(readBody([Buffer.from('not protobuf')], PROTOBUF)).toBeUndefined();
    expect(readBody([Buffer.from('{"kind":"Pod"}')], 'application/cbor')).toBeUndefined();
    expect(readBody([], 'application/json')).toBeUndefined();
    expect(readBody(undefined, 'application/json')).toBeUndefined();
  });
});

describe('decodedWatchEvent (a CBOR watch\'s item)', () => {
  it('reads the type, the key and the resourceVersion, and keeps the object', () => {
    const pod = { kind: 'Pod', metadata: { name: 'a', namespace: 'demo', resourceVersion: '20', uid: 'u', ownerReferences: [{ uid: 'o1' }] } };
    const e = decodedWatchEvent({ type: 'MODIFIED', object: pod })!;
    expect([e.type, e.key, e.rv, e.status, e.table]).toEqual(['MODIFIED', 'demo/a', '20', undefined, undefined]);
    expect(e.object!.raw()).toBe(pod);
    expect([e.object!.key, e.object!.uid, e.object!.owners]).toEqual(['demo/a', 'u', ['o1']]);
    // A cluster-scoped object (a namespace that is not a string is none), and an object without a name.
    expect(decodedWatchEvent({ type: 'ADDED', object: { metadata: { name: 'n1', namespace: 7, resourceVersion: '3' } } })).toMatchObject({ key: 'n1', rv: '3' });
    expect(decodedWatchEvent({ type: 'ADDED', object: { metadata: { name: 5, resourceVersion: 6 } } })).toMatchObject({ type: 'ADDED', key: undefined, rv: undefined });
    expect(decodedWatchEvent({ type: 'DELETED', object: {} })).toMatchObject({ type: 'DELETED', key: undefined, rv: undefined });
    // A bookmark names no object, though its object has metadata.
    expect(decodedWatchEvent({ type: 'BOOKMARK', object: { kind: 'Pod', metadata: { name: 'x', resourceVersion: '30' } } })).toMatchObject({ type: 'BOOKMARK', key: undefined, rv: '30' });
  });

  it('reads an ERROR\'s Status (only its numeric code and string message), with no key', () => {
    expect(decodedWatchEvent({ type: 'ERROR', object: { kind: 'Status', code: 410, message: 'too old', metadata: { name: 'x' } } })).toEqual({ type: 'ERROR', status: { code: 410, message: 'too old' } });
    expect(decodedWatchEvent({ type: 'ERROR', object: { kind: 'Status', code: '410', message: 5 } })).toEqual({ type: 'ERROR', status: { code: undefined, message: undefined } });
  });

  it('is undefined for what is not a watch event', () => {
    for (const v of [undefined, null, 0, 'ADDED', [], [{ type: 'ADDED', object: {} }], { object: {} }, { type: 5, object: {} }, { type: 'ADDED' }, { type: 'ADDED', object: null }, { type: 'ADDED', object: 'x' }, { type: 'ADDED', object: [] }]) {
      expect(decodedWatchEvent(v), JSON.stringify(v)).toBeUndefined();
    }
  });
});

describe('the identity scan, metadata in any order', () => {
  const kubeOrder = { name: 'a', namespace: 'demo', uid: 'uid-a', resourceVersion: '5', ownerReferences: [{ uid: 'rs-1' }, { uid: 'rs-2' }], managedFields: [{ manager: 'm' }] };

  it('reads owner references written before managedFields, as kube writes them, without mistaking them for another field', () => {
    for (const scanned of [readBody([Buffer.from(JSON.stringify({ kind: 'Pod', metadata: kubeOrder }))], 'application/json')!.object!, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: { metadata: kubeOrder } }))).object!]) {
      expect([scanned.key, scanned.rv, scanned.uid, scanned.owners]).toEqual(['demo/a', '5', 'uid-a', ['rs-1', 'rs-2']]);
    }
  });

  it('reads every identity field even when it comes after managedFields (the early stop waits for all four)', () => {
    const fields: [string, unknown][] = [['name', 'a'], ['namespace', 'demo'], ['uid', 'uid-a'], ['resourceVersion', '5']];
    for (const [late, value] of fields) {
      const meta: Record<string, unknown> = Object.fromEntries(fields.filter(([k]) => k !== late));
      meta.managedFields = [{ manager: 'm' }];
      meta[late] = value;
      const o = readBody([Buffer.from(JSON.stringify({ kind: 'Pod', metadata: meta }))], 'application/json')!.object!;
      expect([o.key, o.rv, o.uid], late).toEqual(['demo/a', '5', 'uid-a']);
      expect(scanWatchEvent(Buffer.from(JSON.stringify({ type: 'MODIFIED', object: { metadata: meta } }))), late).toMatchObject({ key: 'demo/a', rv: '5' });
    }
  });

  it('has no key for an object without a name, even in a namespace, and no identity when metadata is not an object', () => {
    const unnamed = readBody([Buffer.from('{"kind":"Pod","metadata":{"namespace":"demo","generateName":"web-"}}')], 'application/json')!;
    expect(unnamed.object!.key).toBeUndefined();
    for (const meta of ['null', '"x"', '[1]']) {
      const o = readBody([Buffer.from(`{"kind":"Status","metadata":${meta},"code":500}`)], 'application/json')!;
      expect([o.kind, o.object!.key, o.object!.rv, o.object!.uid], meta).toEqual(['Status', undefined, undefined, undefined]);
    }
  });

  it('gives up quietly on an object, or a list item, whose metadata is not well-formed, keeping the list\'s own metadata', () => {
    expect(readBody([Buffer.from('{"kind":"Pod","metadata":{"name" "a"}}')], 'application/json')).toBeUndefined();
    // The splitter does not check a top-level member's colon; the identity scan does, and gives up quietly.
    expect(readBody([Buffer.from('{"kind" "Pod","metadata":{"name":"a"}}')], 'application/json')).toBeUndefined();
    const list = readBody([Buffer.from('{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name" "a"}}]}')], 'application/json')!;
    expect(list).toStrictEqual({ kind: 'PodList', resourceVersion: '9', continue: undefined, remainingItemCount: undefined });
  });
});

describe('scanWatchEvent, events as they may be written', () => {
  it('reads the type written after the object, a type it does not know by name, and an event without a type or an object', () => {
    const pod = { metadata: { name: 'a', namespace: 'demo', resourceVersion: '5' } };
    expect(scanWatchEvent(Buffer.from(JSON.stringify({ object: pod, type: 'DELETED' })))).toMatchObject({ type: 'DELETED', key: 'demo/a', rv: '5' });
    expect(scanWatchEvent(Buffer.from(JSON.stringify({ type: 'SYNC', object: pod })))).toMatchObject({ type: 'SYNC', key: 'demo/a' });
    expect(scanWatchEvent(Buffer.from(JSON.stringify({ object: pod })))).toMatchObject({ type: 'UNKNOWN', key: 'demo/a' });
    expect(scanWatchEvent(Buffer.from('{"type":"ADDED"}'))).toStrictEqual({ type: 'ADDED', key: undefined, rv: undefined, object: undefined });
    expect(scanWatchEvent(Buffer.from('{"type":"ADDED","object":null}'))).toStrictEqual({ type: 'ADDED', key: undefined, rv: undefined, object: undefined });
  });

  it('gives a Status only to an ERROR event, and says Table only for a Table', () => {
    const e = scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', code: 5, metadata: { name: 'a' } } })));
    expect(Object.keys(e).sort()).toEqual(['key', 'object', 'rv', 'type']);
    // A Table without rows, or of another kind with rows, is no Table event.
    const noRows = scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: { kind: 'Table', metadata: { resourceVersion: '5' }, columnDefinitions: [] } })));
    expect(noRows).toMatchObject({ type: 'ADDED', key: undefined, rv: '5' });
    expect(noRows.table).toBeUndefined();
    const notTable = scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: { kind: 'Report', metadata: { resourceVersion: '6' }, rows: [{ object: { metadata: { name: 'r' } } }] } })));
    expect(notTable).toMatchObject({ key: undefined, rv: '6' });
    expect(notTable.table).toBeUndefined();
    // Rows written before the kind, or no kind at all: still only a Table is a Table.
    for (const object of [{ rows: [{ object: { metadata: { name: 'r' } } }], kind: 'Report', metadata: { resourceVersion: '6' } }, { rows: [{ object: { metadata: { name: 'r' } } }], metadata: { resourceVersion: '6' } }]) {
      const e2 = scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object })));
      expect(e2, JSON.stringify(object)).toMatchObject({ key: undefined, rv: '6' });
      expect(e2.table).toBeUndefined();
    }
  });

  it('reads a Table event whose rows are empty or carry no object as a Table with no key', () => {
    for (const rows of ['[]', '[ ]', '[{"cells":["a"],"object":null}]', '[{"object":"x"}]', 'null']) {
      const e = scanWatchEvent(Buffer.from(`{"type":"MODIFIED","object":{"kind":"Table","metadata":{"resourceVersion":"7"},"rows":${rows}}}`));
      expect(e, rows).toMatchObject({ type: 'MODIFIED', key: undefined, rv: '7', table: true });
    }
  });

  it('keeps its object readable after keep() though the line it was read from is reused', () => {
    const line = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', namespace: 'demo', resourceVersion: '5' }, data: { k: 'v' } } })}\n`);
    const kept = scanWatchEvent(line).object!.keep!();
    line.fill(0x20);
    expect(kept.raw()).toEqual({ metadata: { name: 'a', namespace: 'demo', resourceVersion: '5' }, data: { k: 'v' } });
  });
});

describe('a JSON list page\'s facts for its list record, its items left unread', () => {
  const cut = (text: string, size: number) => { const b = Buffer.from(text); const out: Buffer[] = []; for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size)); return out; };
  const page = JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '12', continue: 'tok', remainingItemCount: 7 }, items: [pod('a', '1'), pod('b', '2'), pod('c', '3')] });

  it('listFacts counts the items and rows, and says the page\'s resourceVersion, continue token and remaining count', () => {
    for (const size of [5, 997, page.length]) {
      expect(listFacts(cut(page, size)), String(size)).toStrictEqual({ kind: 'PodList', resourceVersion: '12', continue: 'tok', remainingItemCount: 7, itemCount: 3, rows: undefined });
    }
    expect(listFacts(cut('{"kind":"Table","metadata":{"resourceVersion":"4"},"rows":[{"cells":[1]},{"cells":[2]}]}', 9))).toStrictEqual({ kind: 'Table', resourceVersion: '4', continue: undefined, remainingItemCount: undefined, itemCount: undefined, rows: 2 });
    // An object that is no list says only its kind; a body cut short, or none, says nothing.
    expect(listFacts([Buffer.from(JSON.stringify(pod('a', '1')))])).toStrictEqual({ kind: 'Pod' });
    expect(listFacts(cut(page, 50).slice(0, 3))).toBeUndefined();
    expect(listFacts([])).toBeUndefined();
    expect(listFacts(undefined)).toBeUndefined();
  });

  it('listHeadFacts reads the head alone: uncounted items; counted only when the list has no metadata before them', () => {
    for (const size of [5, page.length]) {
      expect(listHeadFacts(cut(page, size)), String(size)).toStrictEqual({ kind: 'PodList', resourceVersion: '12', continue: 'tok', remainingItemCount: 7, uncounted: true });
    }
    // Cut short after its head: the head is all it needs.
    expect(listHeadFacts(cut(page, 50).slice(0, 3))).toMatchObject({ resourceVersion: '12', uncounted: true });
    expect(listHeadFacts([Buffer.from('{"kind":"PodList","items":[{"a":1},{"b":2}]}')])).toStrictEqual({ kind: 'PodList', resourceVersion: undefined, continue: undefined, remainingItemCount: undefined, itemCount: 2 });
    // No head to read (a Table, an object, nothing): the caller counts the page whole instead.
    expect(listHeadFacts([Buffer.from('{"kind":"Table","metadata":{},"rows":[{"a":1}]}')])).toBeUndefined();
    expect(listHeadFacts([Buffer.from(JSON.stringify(pod('a', '1')))])).toBeUndefined();
    expect(listHeadFacts([])).toBeUndefined();
    expect(listHeadFacts(undefined)).toBeUndefined();
  });
});
