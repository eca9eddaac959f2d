// Which of a client's request headers the endpoint passes to the target: all but the credentials kwatch replaces and
// the connection's own.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { forwardedHeaders } from '../../src/endpoint/forward.js';

const request = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as IncomingMessage;

describe('forwardedHeaders', () => {
  it('passes the client\'s identity and its own headers; keeps the endpoint\'s token, hop-by-hop headers and Accept-Encoding', () => {
    const h = forwardedHeaders(request({
      'user-agent': 'rest-client/2.1.0 (linux x86_64) ruby/3.1.2p20', 'x-custom-trace': 'abc', 'audit-id': 'a-1', 'content-type': 'application/json', accept: 'application/json',
      authorization: 'Bearer endpoint-token', host: '127.0.0.1:1234', connection: 'keep-alive, x-hop', 'x-hop': '1', 'keep-alive': 'timeout=5', 'accept-encoding': 'gzip', 'content-length': '12',
    }));
    expect(h).toEqual({ 'user-agent': 'rest-client/2.1.0 (linux x86_64) ruby/3.1.2p20', 'x-custom-trace': 'abc', 'audit-id': 'a-1', 'content-type': 'application/json', accept: 'application/json' });
  });
});
