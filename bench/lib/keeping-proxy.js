// The floor under the endpoint's watch figures (issue 43's replay row), as an HTTP proxy: node:http's server and
// client, each answer's body passed on as it arrives (one write per read, the client's pace kept), plus what any
// endpoint keeping what its client was sent must do per watch event (kept-versions.js). An endpoint that serves its
// clients HTTP of its own (its token, TLS) pays the server's framing and the client's parse that the TCP relays
// (tcp-relay.js, keeping-relay.js) do not. No trace, no faults, no per-client books.
import { Agent, createServer, request } from 'node:http';
import { keptVersions, lineReader } from './kept-versions.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Listens on 127.0.0.1 and proxies each request to `target` (an http:// URL), keeping each watch event's object. */
export async function startKeepingProxy(target) {
  const { hostname, port } = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const versions = keptVersions();
  const server = createServer({ keepAlive: true, requestTimeout: 0 }, (req, res) => {
    const up = request({ host: hostname, port: Number(port), method: req.method, path: req.url, headers: { ...req.headers, host: `${hostname}:${port}` }, agent }, (answer) => {
      const headers = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      res.writeHead(answer.statusCode ?? 502, headers);
      res.flushHeaders();
      const lines = lineReader(versions.keep);
      answer.on('data', (chunk) => {
        if (!res.write(chunk)) answer.pause();
        lines.push(chunk);
      });
      res.on('drain', () => answer.resume());
      answer.on('end', () => res.end());
      answer.on('error', () => res.destroy());
    });
    up.on('error', () => res.destroy());
    res.on('close', () => { if (!res.writableFinished) up.destroy(); });
    req.pipe(up);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    kept: versions.kept,
    events: versions.events,
    close: () => new Promise((resolve) => { server.closeAllConnections(); agent.destroy(); server.close(() => resolve()); }),
  };
}
