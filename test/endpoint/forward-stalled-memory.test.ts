// Watches whose clients stop reading (a controller stuck in a handler, thousands of them in a big run) must cost the
// endpoint a bounded amount each: it reads a forwarded watch from the target no faster than its client drains it, and
// what it holds of the stream meanwhile is about one read, not a queue ahead of the client. Before kwatch read
// forwarded streams with its own socket client, undici read each watch's socket into fresh buffers and queued up to
// 64 kB of body per stream ahead of the endpoint's loop, besides what waited in the response (docs/benchmarks.md,
// issue 43: 452 MB of ArrayBuffers at 2,000 stalled watches).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEndpoint, type Endpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';

const WATCHES = 60;

/** A full collection, so that what is measured is what is held, not garbage not yet collected. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heldBuffers = () => { gc(); gc(); return process.memoryUsage().arrayBuffers; };
/** One watch event of ~24 kB (a pod with a large annotation): reads from the target come full. */
const EVENT = `${JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: 'default', uid: 'u', resourceVersion: '1000', annotations: { blob: 'x'.repeat(24_000) } } } })}\n`;

/**
 * The stand-in target and the clients, in a process of their own (their buffers are not the endpoint's): the target
 * writes each watch as fast as its connection takes it and says when every one is backed up; each client is a real
 * HTTP client that sends its watch and then never reads its answer.
 */
const STAND_INS = `
const http = require('node:http');
const net = require('node:net');
const [n, eventJson] = JSON.parse(process.argv[1]);
const streams = new Set();
const target = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const s = { written: 0, blocked: false };
  streams.add(s);
  res.on('close', () => streams.delete(s));
  const pump = () => {
    s.blocked = false;
    while (!res.destroyed) {
      s.written++;
      if (!res.write(eventJson)) { s.blocked = true; res.once('drain', pump); return; }
    }
  };
  pump();
});
target.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: target.address().port }) + '\\n'));
const clients = [];
process.stdin.on('data', (d) => {
  const u = new URL(String(d).trim());
  for (let i = 0; i < n; i++) {
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write('GET ' + u.pathname + '/api/v1/pods?watch=1&resourceVersion=1 HTTP/1.1\\r\\nHost: ' + u.host + '\\r\\nUser-Agent: stalled/v0\\r\\n\\r\\n');
      s.pause();
    });
    s.on('error', () => {});
    clients.push(s);
  }
  // Settled: every watch reached the target, none can be written further, and nothing moved since the last look.
  let last = -1;
  const look = setInterval(() => {
    const total = [...streams].reduce((t, s) => t + s.written, 0);
    if (streams.size === n && [...streams].every((s) => s.blocked) && total === last) {
      clearInterval(look);
      process.stdout.write(JSON.stringify({ settled: true }) + '\\n');
    }
    last = total;
  }, 100);
});
`;

let standIns: ChildProcess;
let upstream: Connection;
let endpoint: Endpoint;
let nextLine: () => Promise<{ port?: number; settled?: boolean }>;

beforeAll(async () => {
  standIns = spawn(process.execPath, ['-e', STAND_INS, JSON.stringify([WATCHES, EVENT])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: standIns.stdout! });
  nextLine = () => new Promise((r) => lines.once('line', (l) => r(JSON.parse(l))));
  const { port } = await nextLine();
  const tracer = new Tracer();
  upstream = connectionFromUrl(`http://127.0.0.1:${port}`, { tracer });
  endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
});
afterAll(async () => {
  standIns?.kill();
  await endpoint?.close();
  await upstream?.close();
});

it('holds about one read per stalled watch, not a queue: the target is not read while the client does not drain', async () => {
  const before = heldBuffers();
  standIns.stdin!.write(`${endpoint.url}\n`);
  expect(await nextLine()).toEqual({ settled: true });
  const perWatch = (heldBuffers() - before) / WATCHES;
  // What waits in the response and about one read of the target (16 kB) with the start of a split line: 12-24 kB a
  // watch on Node 20 and 24. Before the socket client: 65 kB a watch on Node 20 (undici's queue ahead of the endpoint's
  // loop, on top of the response's). Before its copies had memory of their own (owned-copy.ts): 265 kB a watch on
  // Node 24, whose Buffer pool carves small buffers out of 64 kB slabs, each held whole by one stalled piece.
  expect(perWatch).toBeLessThan(48 * 1024);
}, 120_000);
