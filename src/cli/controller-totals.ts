// The controller's side of the wire in one line, for the exit summary and the --live header of reconcile --exec and
// proxy. Its own file so that the dashboard's test reads it without loading the whole --exec runner.
import type { Endpoint } from '../endpoint/endpoint-server.js';
import { formatBytes } from '../render/format-units.js';

/** The controller's side of the wire in one line: what it asked, what it was sent, its relists (summary and --live). */
export function controllerTotals(endpoint: Pick<Endpoint, 'clients'>): string {
  const clients = endpoint.clients();
  const sum = (f: (c: (typeof clients)[number]) => number) => clients.reduce((n, c) => n + f(c), 0);
  return `requests=${sum((c) => c.requests)} events=${sum((c) => c.events)} relists=${sum((c) => c.relists)} expired=${sum((c) => c.expired)} writes=${sum((c) => c.writes)} bytes=${formatBytes(sum((c) => c.bytes))}`;
}
