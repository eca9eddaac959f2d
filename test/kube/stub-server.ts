// A tiny node:http API server stub for kube tests: routes map "METHOD path" to handlers; every request is recorded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StubHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface StubServer {
  url: string;
  /** Every request as it arrived; `at` is Date.now() on arrival. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; at: number }[];
  routes: Map<string, StubHandler>;
  close(): Promise<void>;
}

export function json(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startStub(routes: Record<string, StubHandler> = {}): Promise<StubServer> {
  const stub: Omit<StubServer, 'url' | 'close'> = { requests: [], routes: new Map(Object.entries(routes)) };
  const server = createServer((req, res) => {
    stub.requests.push({ method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers, at: Date.now() });
    const path = (req.url ?? '').split('?')[0];
    const h = stub.routes.get(`${req.method} ${path}`) ?? stub.routes.get(path);
    if (h) return h(req, res);
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    ...stub,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  } as StubServer;
}
