#!/usr/bin/env node
// annotation-fighter: a controller that FIGHTS ON PURPOSE, for kwatch's fight finding. It watches one ConfigMap and,
// whenever its annotation example.com/owner is not its own name, sets it. Run two of them with different names
// against the same ConfigMap and each rewrites the other's write, every round after the echo of the other's write:
//
//   kwatch reconcile --exec --writes overlay --trace-out fight.html -- sh -c \
//     'node annotation-fighter.mjs fight alice & node annotation-fighter.mjs fight bob & wait'
//
// It speaks to the API server with node:http(s) (the user agent is its name, so kwatch names the client after it),
// using the server, CA and bearer token of the kubeconfig in $KUBECONFIG. It stops after MAX_ROUNDS writes, or on
// SIGTERM.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const [name, me] = process.argv.slice(2);
if (!name || !me) {
  process.stderr.write('usage: annotation-fighter.mjs CONFIGMAP WRITER-NAME\n');
  process.exit(2);
}
const MAX_ROUNDS = Number(process.env.MAX_ROUNDS ?? 20);
const ANNOTATION = 'example.com/owner';
const namespace = process.env.NAMESPACE ?? 'default';

// The kubeconfig kwatch writes has one cluster and one user: read its server and token without a YAML library.
const kubeconfig = readFileSync(process.env.KUBECONFIG, 'utf8');
const server = /server:\s*(\S+)/.exec(kubeconfig)?.[1];
const token = /token:\s*(\S+)/.exec(kubeconfig)?.[1];
const caData = /certificate-authority-data:\s*(\S+)/.exec(kubeconfig)?.[1];
if (!server) throw new Error('no server in $KUBECONFIG');
const ca = caData ? Buffer.from(caData, 'base64') : undefined;
const headers = { 'user-agent': `${me}/v1`, ...(token ? { authorization: `Bearer ${token}` } : {}) };
const base = `${server}/api/v1/namespaces/${namespace}/configmaps`;

process.on('SIGTERM', () => process.exit(0));
let rounds = 0;

async function claim() {
  rounds++;
  const res = await send(`${base}/${name}`, 'PATCH', { 'content-type': 'application/merge-patch+json' }, JSON.stringify({ metadata: { annotations: { [ANNOTATION]: me } } }));
  res.resume();
  process.stderr.write(`${me}: claimed ${name} (${res.statusCode})\n`);
}

/** One request to the API server (HTTPS with the kubeconfig's CA, or plain HTTP), answered by its response stream. */
function send(url, method, extra = {}, body) {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, ...extra }, ...(ca ? { ca } : {}) }, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

const res = await send(`${base}?watch=1&fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`, 'GET');
let buf = '';
for await (const chunk of res) {
  buf += Buffer.from(chunk).toString('utf8');
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line.trim()) continue;
    const event = JSON.parse(line);
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
    if (event.object.metadata.annotations?.[ANNOTATION] === me) continue;
    await claim();
    // Done after its last write, not at the next event: its rival may have stopped already and send none.
    if (rounds >= MAX_ROUNDS) process.exit(0);
  }
}
