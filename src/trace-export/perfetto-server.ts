// Serves one Perfetto file to ui.perfetto.dev: on 127.0.0.1 port 9001 (the only port the UI's content policy lets
// it fetch from), with Access-Control-Allow-Origin for the UI, until the file was fetched once.
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export const PERFETTO_UI = 'https://ui.perfetto.dev';
export const PERFETTO_PORT = 9001;

export interface ServedTrace {
  url: string;
  /** The UI address that loads it. */
  openUrl: string;
  /** Resolves once the file was sent whole (or the server was closed). */
  fetched: Promise<void>;
  close(): Promise<void>;
}

export async function servePerfettoFile(path: string, port = PERFETTO_PORT): Promise<ServedTrace> {
  const body = readFileSync(path);
  const name = encodeURIComponent(basename(path));
  let resolveFetched!: () => void;
  const fetched = new Promise<void>((r) => (resolveFetched = r));
  const server: Server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', PERFETTO_UI);
    res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': '*' });
      return res.end();
    }
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== `/${name}`) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('not found\n');
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
    res.end(body, () => resolveFetched());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new Error(`127.0.0.1:${port} is in use (another kwatch trace open?): ui.perfetto.dev fetches only from port ${PERFETTO_PORT}; stop the other one, or open ${PERFETTO_UI} and drop the file on it`) : e));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actualPort = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${actualPort}/${name}`;
  return {
    url,
    openUrl: `${PERFETTO_UI}/#!/?url=${url}`,
    fetched,
    close: () =>
      new Promise<void>((resolve) => {
        resolveFetched();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
