// The controller's side of bench/endpoint.js: a plain undici client in its own process (as a controller process is
// its own), driven by JSON-line commands on stdin; each reply is one JSON line on stdout with the command's `id`.
// The same client talks to the sim directly or through kwatch's endpoint: only the base URL changes.
//   {"id":1,"cmd":"list","base":URL,"limit":500?,"itemBytes":false,"maxPages":∞}
//        → GET /api/v1/pods (every page when `limit` is set, up to maxPages), each body read whole then JSON.parse'd, as a client does
//        → {"id":1,"ms":…,"bodyMs":… (the same without the parse),"items":…,"pages":…,"bytes":…,"itemBytes"?:…}
//          itemBytes (when asked, outside the clock): the JSON size of the items, each serialised alone
//   {"id":2,"cmd":"watch","base":URL,"rv":RV,"n":N}
//        → a watch of pods from RV: {"id":2,"open":true} once its headers came, then, after N events (each line
//          JSON.parse'd), {"id":2,"events":N,"spanMs":… (first to last event),"openMs":… (open to last event),
//          "headMs":… (request sent to headers),"firstMs":… (request sent to the first event)}
//   {"id":3,"cmd":"writes","base":URL,"namespace":NS,"name":NAME,"n":N,"warmup":W}
//        → creates ConfigMap NS/NAME, watches configmaps in NS from its resourceVersion, then W + N writes one at a
//          time, merge PATCH and PUT in turn, each changing data.seq: the time from sending a write to receiving its
//          watch event → {"id":3,"latenciesMs":[…N]}
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

const { AbortController, URLSearchParams } = globalThis;

const USER_AGENT = 'bench-controller/v0.0.0 (linux/amd64) kubernetes/bench';
const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: 8 });
const now = () => performance.now();
const reply = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

async function send(method, url, body, contentType = 'application/json') {
  const res = await request(url, { method, dispatcher, headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...(body ? { 'content-type': contentType } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 300)}`);
  return text;
}

async function list({ base, limit, itemBytes, maxPages = Infinity }) {
  let cont = '';
  let items = 0;
  let pages = 0;
  let bytes = 0;
  let parseMs = 0;
  let sizes = 0;
  let sizingMs = 0;
  const t0 = now();
  do {
    const q = new URLSearchParams();
    if (limit) q.set('limit', String(limit));
    if (cont) q.set('continue', cont);
    const text = await send('GET', `${base}/api/v1/pods${q.size ? `?${q}` : ''}`);
    bytes += Buffer.byteLength(text);
    const p0 = now();
    const page = JSON.parse(text);
    parseMs += now() - p0;
    items += page.items.length;
    pages++;
    cont = page.metadata?.continue ?? '';
    if (itemBytes) {
      // Not a client's work: kept off the clock.
      const s0 = now();
      for (const it of page.items) sizes += Buffer.byteLength(JSON.stringify(it));
      sizingMs += now() - s0;
    }
  } while (cont && pages < maxPages);
  const ms = now() - t0 - sizingMs;
  return { ms, bodyMs: ms - parseMs, items, pages, bytes, ...(itemBytes ? { itemBytes: sizes } : {}) };
}

/** A watch as a client reads one: the body split into lines, each parsed; resolves after `n` events (bookmarks not counted). */
async function watch({ id, base, path = '/api/v1/pods', rv, n, selector }) {
  const ac = new AbortController();
  const q = new URLSearchParams({ watch: '1', resourceVersion: String(rv), allowWatchBookmarks: 'true' });
  if (selector) q.set('fieldSelector', selector);
  const sentAt = now();
  const res = await request(`${base}${path}?${q}`, { dispatcher, signal: ac.signal, headers: { accept: 'application/json', 'user-agent': USER_AGENT } });
  if (res.statusCode !== 200) throw new Error(`watch ${path}: ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
  const openedAt = now();
  reply({ id, open: true });
  let carry = '';
  let events = 0;
  let first;
  let last;
  try {
    for await (const chunk of res.body) {
      const lines = (carry + chunk.toString('utf8')).split('\n');
      carry = lines.pop();
      for (const line of lines) {
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.type === 'BOOKMARK') continue;
        if (e.type === 'ERROR') throw new Error(`watch ${path}: ${line.slice(0, 300)}`);
        events++;
        last = now();
        first ??= last;
      }
      if (events >= n) break;
    }
  } finally {
    ac.abort();
  }
  if (events < n) throw new Error(`watch ${path} ended after ${events} of ${n} events`);
  return { events, spanMs: last - first, openMs: last - openedAt, headMs: openedAt - sentAt, firstMs: first - sentAt };
}

/** Write → its watch event, one write at a time (merge PATCH and PUT in turn); the latencies after the warm-up. */
async function writes({ base, namespace, name, n, warmup }) {
  const coll = `${base}/api/v1/namespaces/${namespace}/configmaps`;
  const created = JSON.parse(await send('POST', coll, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { seq: '-1' } }));
  let latest = created;
  let waiting;
  const ac = new AbortController();
  const q = new URLSearchParams({ watch: '1', resourceVersion: created.metadata.resourceVersion, fieldSelector: `metadata.name=${name}` });
  const res = await request(`${coll}?${q}`, { dispatcher, signal: ac.signal, headers: { accept: 'application/json', 'user-agent': USER_AGENT } });
  if (res.statusCode !== 200) throw new Error(`watch configmaps: ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
  const reader = (async () => {
    let carry = '';
    for await (const chunk of res.body) {
      const lines = (carry + chunk.toString('utf8')).split('\n');
      carry = lines.pop();
      for (const line of lines) {
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.type !== 'MODIFIED') continue;
        latest = e.object;
        if (waiting && e.object.data?.seq === waiting.seq) waiting.resolve(now());
      }
    }
  })().catch((err) => waiting?.reject(err));
  const latencies = [];
  try {
    for (let i = 0; i < warmup + n; i++) {
      const seq = String(i);
      const seen = new Promise((resolve, reject) => (waiting = { seq, resolve, reject }));
      const t0 = now();
      const written = i % 2 === 0
        ? send('PATCH', `${coll}/${name}`, { data: { seq } }, 'application/merge-patch+json')
        : send('PUT', `${coll}/${name}`, { ...latest, data: { ...latest.data, seq } });
      const [at] = await Promise.all([seen, written]);
      if (i >= warmup) latencies.push(at - t0);
    }
  } finally {
    ac.abort();
    await reader;
  }
  await send('DELETE', `${coll}/${name}`);
  return { latenciesMs: latencies };
}

const COMMANDS = { list, watch, writes };

createInterface({ input: process.stdin }).on('line', async (line) => {
  const cmd = JSON.parse(line);
  try {
    reply({ id: cmd.id, ...(await COMMANDS[cmd.cmd](cmd)) });
  } catch (err) {
    reply({ id: cmd.id, error: String(err?.message ?? err) });
  }
}).on('close', async () => {
  await dispatcher.close();
  process.exit(0);
});
