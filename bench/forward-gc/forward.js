// What starts V8's mark-compacts when a process forwards a large body (issue 43, round 7, docs/benchmarks.md): 132 MB
// from an origin (peer.js, its own process, which also drains the answer) through this process, counting this
// process's GCs per pass. Modes: iter (undici's request, `for await` into res.write), dispatch (undici's dispatch with
// onResponseData writing into res, paused while res does not drain), pool (net's onread into one buffer, copied into
// 64 kB slabs used again once res.write's callback came; it forwards the raw bytes, head included, which is enough to
// count GCs), block (round 8: net's onread into one buffer used for every read, the chunked framing read here, each
// read's body bytes copied at once into bump-allocated blocks of BLOCK_KB (1024) that are never used again: the GC
// frees a block when nothing views it), latin1 (round 8: the same reads, each read's body bytes made a latin1 string
// in V8's heap and written as one; no ArrayBuffer per read). HOLD=1 keeps the pass's chunks until the next pass (in
// the slabs for pool, the blocks' views for block, the strings for latin1), HOLD=copy (pool) as fresh copies.
//   node --expose-gc bench/forward-gc/forward.js block   (ROUNDS, default 4; the first pass of a process is the cold one)
import http from 'node:http';
import { fork } from 'node:child_process';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { setFlagsFromString } from 'node:v8';
// RUNTIME_V8_FLAGS: V8 flags set once the process runs (v8.setFlagsFromString), as kwatch could set them itself.
if (process.env.RUNTIME_V8_FLAGS) setFlagsFromString(process.env.RUNTIME_V8_FLAGS);
const MODE = process.argv[2] ?? 'iter';
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const peer = fork(new URL('./peer.js', import.meta.url));
const msg = () => new Promise((r) => peer.once('message', r));
const { port: originPort } = await msg();
const agent = new Agent({ keepAliveTimeout: 30000 });
const hold = [];
import net from 'node:net';
const STATIC = Buffer.allocUnsafeSlow(64 * 1024);
const SLAB = 64 * 1024;
const freeSlabs = [];
const slabRefs = new Map();
let slab, slabUsed = 0, allocs = 0;
const heldSlabs = [];
function unref(s) { const n = slabRefs.get(s) - 1; slabRefs.set(s, n); if (n === 0 && s !== slab) freeSlabs.push(s); }

const BLOCK = Number(process.env.BLOCK_KB ?? 1024) * 1024;
let block, blockUsed = 0, blocks = 0;
/** A copy of buf[from, to) in the current block (a new one when it does not fit), as a view GC owns. */
function blockCopy(buf, from, to) {
  const n = to - from;
  if (!block || blockUsed + n > BLOCK) { // BLOCK_KB=0: a fresh buffer at each read's size (the socket client's copy today)
    block = Buffer.allocUnsafeSlow(Math.max(BLOCK, n)); blockUsed = 0; blocks++; }
  buf.copy(block, blockUsed, from, to);
  const view = block.subarray(blockUsed, blockUsed + n);
  blockUsed += n;
  return view;
}
/**
 * The origin's answer read with net's onread into STATIC, its head skipped, its chunked framing undone; `take(buf,
 * pieces)` gets each read's body pieces (views of the read buffer, valid during the call) and returns false to pause.
 */
function readChunked(port, path, take, done) {
  let head = true, size = -1, line = '', crlf = 0, paused = false;
  const pieces = [];
  const sock = net.connect({ host: '127.0.0.1', port, onread: { buffer: STATIC, callback: (n, buf) => {
    let at = 0;
    if (head) { const e = buf.subarray(0, n).indexOf('\r\n\r\n'); if (e < 0) throw new Error('head across reads'); at = e + 4; head = false; }
    while (at < n) {
      if (crlf > 0) { at++; crlf--; continue; }
      if (size <= 0) {
        const nl = buf.indexOf(10, at);
        if (nl < 0 || nl >= n) { line += buf.latin1Slice(at, n); at = n; break; }
        line += buf.latin1Slice(at, nl); at = nl + 1;
        size = parseInt(line, 16); line = '';
        if (size === 0) { sock.destroy(); done(); return false; }
        continue;
      }
      const k = Math.min(size, n - at);
      pieces.push(at, at + k);
      at += k; size -= k;
      if (size === 0) { size = -1; crlf = 2; }
    }
    const ok = pieces.length === 0 || take(buf, pieces);
    pieces.length = 0;
    if (!ok && !paused) { paused = true; return false; }
    return true;
  } } });
  sock.on('connect', () => sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
  return () => { if (paused) { paused = false; sock.resume(); } };
}

const server = http.createServer(async (req, res) => {
  if (MODE === 'iter') {
    const a = await request(`http://127.0.0.1:${originPort}${req.url}`, { dispatcher: agent });
    res.writeHead(200, { 'content-type': 'application/json' });
    for await (const c of a.body) { if (process.env.HOLD) hold.push(c); if (!res.write(c)) await new Promise((r) => res.once('drain', r)); }
    res.end();
  } else if (MODE === 'pool') {
    // raw bytes (head included) read into one static buffer, copied into recycled 64 KB slabs
    res.writeHead(200, { 'content-type': 'application/json' });
    const sock = net.connect({ host: '127.0.0.1', port: originPort, onread: { buffer: STATIC, callback: (n, buf) => {
      let off = 0;
      while (off < n) {
        if (!slab || slabUsed === SLAB) { if (slab) { const o = slab; slab = undefined; unref(o); } slab = freeSlabs.pop() ?? (allocs++, Buffer.allocUnsafeSlow(SLAB)); slabUsed = 0; slabRefs.set(slab, 1); }
        const k = Math.min(n - off, SLAB - slabUsed);
        buf.copy(slab, slabUsed, off, off + k);
        const view = slab.subarray(slabUsed, slabUsed + k);
        slabUsed += k; off += k;
        const s = slab;
        slabRefs.set(s, slabRefs.get(s) + 1);
        if (process.env.HOLD === 'copy') hold.push(Buffer.from(view));
        else if (process.env.HOLD) { slabRefs.set(s, slabRefs.get(s) + 1); hold.push(view); heldSlabs.push(s); }
        const ok = res.write(view, () => unref(s));
        if (!ok && !paused) { paused = true; sock.pause(); res.once('drain', () => { paused = false; sock.resume(); }); }
      }
      return true;
    } } });
    let paused = false;
    sock.on('connect', () => sock.write(`GET ${req.url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    sock.on('end', () => res.end());
  } else if (MODE === 'block' || MODE === 'latin1') {
    res.writeHead(200, { 'content-type': 'application/json' });
    const resume = readChunked(originPort, req.url, (buf, pieces) => {
      let ok = true;
      for (let i = 0; i < pieces.length; i += 2) {
        const c = MODE === 'block' ? blockCopy(buf, pieces[i], pieces[i + 1]) : buf.latin1Slice(pieces[i], pieces[i + 1]);
        if (process.env.HOLD) hold.push(c);
        ok = (MODE === 'block' ? res.write(c) : res.write(c, 'latin1')) && ok;
      }
      if (!ok) res.once('drain', () => resume());
      return ok;
    }, () => res.end());
  } else if (MODE === 'dispatch') {
    agent.dispatch({ origin: `http://127.0.0.1:${originPort}`, path: req.url, method: 'GET' }, {
            onRequestStart() {},
      onResponseStart(_c, status) { res.writeHead(status, { 'content-type': 'application/json' }); },
      onResponseData(c, chunk) { if (process.env.HOLD) hold.push(chunk); if (!res.write(chunk)) { c.pause(); res.once('drain', () => c.resume()); } },
      onResponseEnd() { res.end(); },
      onResponseError(c, err) { res.destroy(err); },
    });
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const KINDS = { [perf.NODE_PERFORMANCE_GC_MINOR]: 'scav', [perf.NODE_PERFORMANCE_GC_MAJOR]: 'mc', [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'inc', [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' };
const seen = [];
// PREWARM=1: one small answer through the forwarder first, so that the first large pass meets warm code (as an
// endpoint's first LIST meets an undici that discovery already used), not a first call.
if (process.env.PREWARM) { peer.send({ cmd: 'get', port: server.address().port, path: '/small' }); await msg(); hold.length = 0; }
new PerformanceObserver((l) => seen.push(...l.getEntries())).observe({ entryTypes: ['gc'] });
for (let r = 0; r < ROUNDS; r++) {
  hold.length = 0; for (const s of heldSlabs.splice(0)) unref(s); if (slab) { const s = slab; slab = undefined; unref(s); }
  globalThis.gc?.();
  // The forced collection's entry is delivered after a turn or two: let it come before the count starts (round 7's
  // counts included it, so its "1" is 0 here).
  await new Promise((r) => setTimeout(r, 20));
  seen.length = 0;
  const c0 = process.cpuUsage();
  peer.send({ cmd: 'get', port: server.address().port });
  const x = await msg();
  const c = process.cpuUsage(c0);
  const by = {};
  for (const e of seen) { const k = KINDS[e.detail.kind]; by[k] ??= [0, 0]; by[k][0]++; by[k][1] += e.duration; }
  const mu = process.memoryUsage();
  console.log(`${MODE} r${r}: ${(x.n / 1e6).toFixed(0)} MB ${Math.round(x.ms)} ms, cpu ${Math.round((c.user + c.system) / 1000)} ms, gc ${Object.entries(by).map(([k, [n, ms]]) => `${k} ${n}/${Math.round(ms)}ms`).join(' ')}; ext ${Math.round(mu.external / 1e6)} ab ${Math.round(mu.arrayBuffers / 1e6)} heap ${Math.round(mu.heapUsed / 1e6)} slabs ${allocs} blocks ${blocks}`);
}
peer.kill();
process.exit(0);
