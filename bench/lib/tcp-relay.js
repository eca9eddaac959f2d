// A process in between that does nothing but copy bytes both ways (a TCP relay, in the caller's process): what any
// proxy costs on this machine, the floor under the endpoint's figures (bench/endpoint.js, endpoint-replay.js).
import { connect as connectNet, createServer as createNetServer } from 'node:net';

/**
 * Listens on 127.0.0.1 and relays each connection to `target` (an http:// URL); `close` ends every relayed socket.
 * `readAnswers`, if given, makes one listener per connection for the target's bytes, read beside the copy.
 */
export async function startRelay(target, readAnswers) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  const server = createNetServer((client) => {
    const upstream = connectNet({ host: hostname, port: Number(port) });
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    if (readAnswers) upstream.on('data', readAnswers());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}
