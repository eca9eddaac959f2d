// The open connections of an HTTP(S) server (the sim's, the endpoint's), kept so that closing it ends them too: an
// open watch or a keep-alive connection would otherwise hold server.close() (and the process) forever.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ServerSockets {
  /** Stops listening, closes idle connections at once and, after `graceMs`, whatever is still open. */
  close(graceMs?: number): Promise<void>;
}

export function trackSockets(server: Server): ServerSockets {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  });
  return {
    async close(graceMs = 500) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Give in-flight responses a moment, then cut whatever is left.
      const timer = setTimeout(() => { for (const s of sockets) s.destroy(); }, graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
