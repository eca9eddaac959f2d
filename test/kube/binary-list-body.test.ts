// A list answered in a binary encoding (CBOR or protobuf) is read whole and then judged as a JSON list is: a body
// that does not decode, or decodes to something that is not a list, is one clear error naming the server and the
// path; a good one has its managedFields dropped when asked and its items' kind filled in.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFromUrl } from '../../src/kube/http/connection.js';
import { UnexpectedAnswerError } from '../../src/kube/http/unexpected-answer.js';
import { HttpListerWatcher, type WireFormat } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { encodeCbor as encodeCborValue } from '../../src/sim/cbor-wire.js';

let answer: { type: string; body: Buffer } = { type: 'application/json', body: Buffer.from('{}') };
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': answer.type });
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => { await new Promise((r) => server.close(r)); });

function lister(wire: WireFormat, omitManagedFields = false) {
  return new HttpListerWatcher(connectionFromUrl(url), { group: '', version: 'v1', resource: 'configmaps', namespaced: true, namespace: 'default' }, { wire, omitManagedFields });
}

describe('a binary list body', () => {
  it('CBOR that does not decode is an UnexpectedAnswerError naming the server, the path and the encoding', async () => {
    answer = { type: 'application/cbor', body: Buffer.from([0xff, 0x00, 0x13]) };
    const err = await lister('cbor').list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toContain(`the server at ${url} sent an unreadable CBOR list body for /api/v1/namespaces/default/configmaps: `);
  });

  it('protobuf that does not decode is an UnexpectedAnswerError saying kwatch cannot read it', async () => {
    answer = { type: 'application/vnd.kubernetes.protobuf', body: Buffer.from('not protobuf at all') };
    const err = await lister('protobuf').list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toContain(`the server at ${url} sent a protobuf list body for /api/v1/namespaces/default/configmaps that kwatch cannot read: `);
  });

  it('CBOR that decodes to something other than a list object is refused as not a Kubernetes API response', async () => {
    answer = { type: 'application/cbor', body: encodeCborValue([1, 2]) };
    const err = await lister('cbor').list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toContain('not an object (not a Kubernetes API response)');
  });

  it('a good CBOR list: the byte count, managedFields dropped when asked, each item given the list kind\'s kind', async () => {
    const list = {
      apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' },
      items: [{ metadata: { name: 'a', namespace: 'default', managedFields: [{ manager: 'kubectl' }] }, data: { k: 'v' } }],
    };
    answer = { type: 'application/cbor', body: encodeCborValue(list) };
    const page = await lister('cbor', true).list({});
    expect(page.bytes).toBe(answer.body.length);
    expect(page.metadata.resourceVersion).toBe('7');
    expect(page.items).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } }]);
    const kept = await lister('cbor').list({});
    expect(kept.items[0].metadata.managedFields).toEqual([{ manager: 'kubectl' }]);
  });
});
