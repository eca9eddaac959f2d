// Under --writes server-dry-run, an update's or a patch's answer is diffed against the object the target holds now
// (current-object.ts). What is read, and when nothing is: a wrong "current" object would make the write record's
// diff lie about what the write would change.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentObject } from '../../src/endpoint/current-object.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';

const STORED = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'demo', resourceVersion: '7', managedFields: [{ manager: 'kubectl' }] }, data: { k: 'v' } };
const ANSWERS: Record<string, [number, string]> = {
  '/api/v1/namespaces/demo/configmaps/a': [200, JSON.stringify(STORED)],
  '/api/v1/namespaces/demo/configmaps/plain': [200, JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'plain' }, data: {} })],
  '/api/v1/namespaces/demo/configmaps/status-200': [200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' })],
  '/api/v1/namespaces/demo/configmaps/no-metadata': [200, JSON.stringify({ kind: 'ConfigMap', metadata: 'x', data: {} })],
  '/api/v1/namespaces/demo/configmaps/not-json': [200, '<html>'],
  '/api/v1/namespaces/demo/configmaps/empty': [200, ''],
  '/api/v1/namespaces/demo/configmaps/created': [201, JSON.stringify(STORED)],
  '/api/v1/namespaces/demo/configmaps/forbidden': [403, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403 })],
};

let stand: Server;
let target: Connection;
const accepts: (string | undefined)[] = [];
beforeAll(async () => {
  stand = createServer((req, res) => {
    accepts.push(req.headers.accept);
    const [status, body] = ANSWERS[req.url ?? ''] ?? [404, JSON.stringify({ kind: 'Status', code: 404 })];
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => stand.listen(0, '127.0.0.1', r));
  target = connectionFromUrl(`http://127.0.0.1:${(stand.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await target?.close();
  await new Promise((r) => stand?.close(r));
});

describe('currentObject', () => {
  it('reads the object the target holds, as JSON, without managedFields and leaving the rest as stored', async () => {
    accepts.length = 0;
    const { managedFields: _m, ...meta } = STORED.metadata;
    expect(await currentObject(target, '/api/v1/namespaces/demo/configmaps/a')).toEqual({ ...STORED, metadata: meta });
    expect(await currentObject(target, '/api/v1/namespaces/demo/configmaps/plain')).toEqual({ kind: 'ConfigMap', metadata: { name: 'plain' }, data: {} });
    expect(accepts).toEqual(['application/json', 'application/json']);
  });

  it('is nothing, never an error, where the target has no object to show: 404, 403, a Status, a body that is no object', async () => {
    for (const name of ['gone', 'forbidden', 'status-200', 'no-metadata', 'not-json', 'empty', 'created']) {
      expect(await currentObject(target, `/api/v1/namespaces/demo/configmaps/${name}`), name).toBeUndefined();
    }
  });

  it('is nothing when the target cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const unreachable = connectionFromUrl(`http://127.0.0.1:${port}`);
    try {
      expect(await currentObject(unreachable, '/api/v1/namespaces/demo/configmaps/a')).toBeUndefined();
    } finally {
      await unreachable.close();
    }
  });
});
