// The origin and the draining client of bench/forward-gc/forward.js, in a process of their own.
import http from 'node:http';
const PAGE = 3.3e6, PAGES = 40;
const page = Buffer.alloc(PAGE, 'x');
const origin = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  // /small: one 100 kB answer, to warm a forwarder's code up before its first large pass (PREWARM=1).
  if (req.url === '/small') return res.end(page.subarray(0, 100_000));
  let i = 0;
  const more = () => { while (i < PAGES) { i++; if (!res.write(page)) return res.once('drain', more); } res.end(); };
  more();
});
origin.listen(0, '127.0.0.1', () => process.send({ port: origin.address().port }));
const agent = new http.Agent({ keepAlive: true });
process.on('message', (m) => {
  if (m.cmd !== 'get') return;
  const t0 = performance.now();
  http.get({ host: '127.0.0.1', port: m.port, path: m.path ?? '/x', agent }, (res) => {
    let n = 0;
    res.on('data', (c) => { n += c.length; });
    res.on('end', () => process.send({ n, ms: performance.now() - t0 }));
  });
});
