// kwatch's own --wire cbor: lists and watches asked for in CBOR (with JSON as the fallback) against the sim with the
// CBORServingAndStorage gate on and off, errors sent in CBOR read as their Status, and kube's own CBOR encoding
// (strings and field names as byte strings, []byte in tag 22) read as the JSON value it stands for.
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../src/informer/errors.js';
import { decodeCborBody, decodeCborSequence } from '../../src/kube/http/cbor-body.js';
import type { WireFormat } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { firstEventAfterCreate, lastContentType, wireSims } from './wire-helpers.js';

const startSim = wireSims();

async function setup(gate: boolean, wire: WireFormat) {
  const { sim, records, lw } = await startSim({ featureGates: { CBORServingAndStorage: gate }, pods: 0, nodes: 0, churn: 0 });
  return { sim, lw: lw(wire), lwWith: (w: WireFormat) => lw(w), records };
}

const lastType = lastContentType;

describe('--wire cbor against the sim', () => {
  it('gate on: the list comes in CBOR, with the same items as in JSON, and the http record says so', async () => {
    const cbor = await setup(true, 'cbor');
    const page = await cbor.lw.list({});
    expect(lastType(cbor.records)).toBe('application/cbor');
    const json = await cbor.lwWith('json').list({});
    expect(page.items.map((i) => i.metadata.name)).toEqual(['one', 'two']);
    expect(page.items).toEqual(json.items);
    expect(page.kind).toBe('ConfigMapList');
  });

  it('gate on: a watch comes as application/cbor-seq, events decoded item by item', async () => {
    const { sim, lw, records } = await setup(true, 'cbor');
    const page = await lw.list({});
    const e = await firstEventAfterCreate(sim, lw, page.metadata.resourceVersion, () => expect(lastType(records)).toBe('application/cbor-seq'));
    expect([e.type, e.object.metadata.name, (e.object as { data?: unknown }).data]).toEqual(['ADDED', 'three', { k: 'three' }]);
    expect(e.bytes).toBeGreaterThan(0);
  });

  it('gate off: the server answers JSON and the list and watch read it (the fallback)', async () => {
    const { lw, records } = await setup(false, 'cbor');
    const page = await lw.list({});
    expect(page.items).toHaveLength(2);
    expect(lastType(records)).toBeUndefined();
    const stream = await lw.watch({ resourceVersion: page.metadata.resourceVersion });
    expect(lastType(records)).toBe('application/json');
    stream.close();
  });

  it('an error answered in CBOR is read as its Status', async () => {
    const { lw, lwWith, records } = await setup(true, 'cbor');
    const err = await lw.list({ labelSelector: 'a in (' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    const json = await lwWith('json').list({ labelSelector: 'a in (' }).catch((e: unknown) => e);
    void records;
    expect((err as StatusError).status).toEqual((json as StatusError).status);
    expect((err as StatusError).status.reason).toBe('BadRequest');
  });
});

describe('kube\'s CBOR encoding', () => {
  // {"kind":"Secret","data":{"key":<[]byte 01 02 03>}} as kube's encoder writes it: self-described, field names and
  // strings as byte strings (0x44 "kind"), the []byte in tag 22 (0xd6).
  const kubeBytes = Buffer.from('d9d9f7' + 'a2' + '44' + '6b696e64' + '46' + '536563726574' + '44' + '64617461' + 'a1' + '43' + '6b6579' + 'd6' + '43' + '010203', 'hex');

  it('reads byte-string keys and strings as text and tag 22 as base64, as JSON carries them', () => {
    expect(decodeCborBody(kubeBytes)).toEqual({ kind: 'Secret', data: { key: 'AQID' } });
  });

  it('reads a sequence split anywhere across chunks', async () => {
    const one = kubeBytes;
    const whole = Buffer.concat([one, one, one]);
    async function* chunks() { for (let i = 0; i < whole.length; i += 5) yield whole.subarray(i, i + 5); }
    const items: unknown[] = [];
    for await (const batch of decodeCborSequence(chunks(), 1024)) items.push(...batch.map((b) => b.value));
    expect(items).toEqual([decodeCborBody(one), decodeCborBody(one), decodeCborBody(one)]);
  });

  it('a body that ends inside an item is an error', async () => {
    async function* cut() { yield kubeBytes.subarray(0, kubeBytes.length - 2); }
    const run = async () => { for await (const _ of decodeCborSequence(cut(), 1024)) void _; };
    await expect(run()).rejects.toThrow(/ended inside a CBOR item/);
  });
});
