// Replaying a large recording (issue 28, item 5): `kwatch replay FILE` reads recordings as a stream, so its peak
// RSS follows the largest state the recording holds, not the file's size. A recording is generated here — one
// LIST of STATE_PODS pods, then one watch of MODIFIED events cycling over them until the file reaches TARGET_BYTES
// — and two processes are measured by their own peak RSS (process.resourceUsage().maxRSS at exit):
//   - the reference: a node process that parses the recording's LIST page and holds its pods in a Map (the state);
//   - `kwatch replay FILE -o ndjson` (the built CLI, output to /dev/null), through the whole pipeline;
//   - the same with V8's old space capped at 2 × the reference's peak RSS: whether the replay's live memory fits
//     there (V8 otherwise lets garbage pile up well past the live set before a full collection).
// Verdicts: replay peak RSS ≤ 2 × the reference's; the capped replay completes.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUICK, fmtInt, publish, round, startLoadNote, table, verdict } from './lib/common.js';

const TARGET_BYTES = Number(process.env.KWATCH_BENCH_RECORDING_BYTES) || (QUICK ? 50e6 : 1e9);
const STATE_PODS = QUICK ? 2_000 : 20_000;
const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
/** Prints the process's peak RSS (bytes) on stderr as it exits. */
const MAXRSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('MAXRSS '+process.resourceUsage().maxRSS*1024+'\\n'))`;

function pod(i, rv) {
  const name = `app-${i}`;
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name, namespace: `ns-${i % 20}`, uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`, resourceVersion: String(rv), labels: { app: `app-${i % 100}`, tier: 'web', 'pod-template-hash': '5d8f7c9b6' }, annotations: { 'example.com/note': 'x'.repeat(200) } },
    spec: { nodeName: `node-${i % 50}`, containers: [{ name: 'main', image: 'registry.example/app:1.2.3', ports: [{ containerPort: 8080 }], env: Array.from({ length: 10 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}-${'y'.repeat(40)}` })), resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
    status: { phase: 'Running', podIP: `10.0.${(i >> 8) & 255}.${i & 255}`, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  };
}

/** Writes the recording in 8 MB batches; returns its size and event count. */
function generate(file) {
  const fd = openSync(file, 'w');
  let batch = [];
  let batchBytes = 0;
  let bytes = 0;
  const put = (line) => {
    batch.push(line);
    batchBytes += line.length + 1;
    if (batchBytes > 8e6) flush();
  };
  const flush = () => {
    const text = batch.join('\n') + '\n';
    writeSync(fd, text);
    bytes += Buffer.byteLength(text);
    batch = [];
    batchBytes = 0;
  };
  put(JSON.stringify({ kind: 'KwatchRecording', formatVersion: 1, kwatchVersion: 'bench', server: 'https://bench.invalid', resources: [{ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }], startTime: '2026-01-01T00:00:00.000Z', masked: true }));
  const items = Array.from({ length: STATE_PODS }, (_, i) => pod(i, 1 + i));
  // Pages of 500, as the pager makes them.
  for (let p = 0; p * 500 < STATE_PODS; p++) {
    const last = (p + 1) * 500 >= STATE_PODS;
    const page = { metadata: { resourceVersion: String(STATE_PODS), ...(last ? {} : { continue: `c${p + 1}` }) }, items: items.slice(p * 500, (p + 1) * 500) };
    put(JSON.stringify({ rec: 'list', t: 1, res: 0, conn: 1 + p, options: { limit: 500, ...(p ? { continue: `c${p}` } : {}) }, page }));
  }
  const conn = 1 + Math.ceil(STATE_PODS / 500);
  put(JSON.stringify({ rec: 'watch-start', t: 2, res: 0, conn, options: { resourceVersion: String(STATE_PODS), allowWatchBookmarks: true } }));
  let rv = STATE_PODS;
  let events = 0;
  while (bytes + batchBytes < TARGET_BYTES) {
    rv++;
    const object = pod(events % STATE_PODS, rv);
    put(JSON.stringify({ rec: 'event', t: 3 + Math.floor(events / 100), res: 0, conn, event: { type: 'MODIFIED', object } }));
    events++;
  }
  flush();
  closeSync(fd);
  return { bytes: statSync(file).size, events };
}

/** Runs node with the peak-RSS hook; resolves with the peak in bytes and the wall time. */
function measured(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', MAXRSS_HOOK, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => {
      const m = /MAXRSS (\d+)/.exec(err);
      if (code !== 0 || !m) return reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(-2000)}`));
      resolve({ peak: Number(m[1]), seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** The reference: the recording's LIST pages parsed and their pods held in a Map, as a cache holds the state. */
const REFERENCE = `
import { readLines } from ${JSON.stringify(new URL('../dist/informer/recording/line-reader.js', import.meta.url).href)};
const state = new Map();
for (const line of readLines(process.argv[1])) {
  if (!line.text.startsWith('{"rec":"list"')) { if (state.size) break; continue; }
  for (const o of JSON.parse(line.text).page.items) state.set(o.metadata.namespace + '/' + o.metadata.name, o);
}
globalThis.kept = state;
`;

const dir = mkdtempSync(join(tmpdir(), 'kwatch-bench-recording-'));
try {
  const file = join(dir, 'big.ndjson');
  const t0 = performance.now();
  const { bytes, events } = generate(file);
  const genSeconds = (performance.now() - t0) / 1000;
  const reference = await measured(['--input-type=module', '-e', REFERENCE, file]);
  const replay = await measured([BIN, 'replay', file, '-o', 'ndjson', '--stages', 'reflector']);
  const capMb = Math.round((2 * reference.peak) / 1e6);
  const capped = await measured([`--max-old-space-size=${capMb}`, BIN, 'replay', file, '-o', 'ndjson', '--stages', 'reflector']).catch((e) => ({ failed: e.message.split('\n')[0] }));
  const ratio = replay.peak / reference.peak;
  const ok = ratio <= 2;
  const mb = (b) => fmtInt(b / 1e6);
  const md = [
    `A generated recording of ${mb(bytes)} MB (${fmtInt(STATE_PODS)} pods listed, then ${fmtInt(events)} MODIFIED events; written in ${round(genSeconds, 1)} s), replayed by the built CLI (\`kwatch replay FILE -o ndjson --stages reflector\`, output discarded). ${startLoadNote()}`,
    '',
    table(
      ['process', 'peak RSS (MB)', 'seconds'],
      [
        [`reference: the ${fmtInt(STATE_PODS)} listed pods held in a Map`, mb(reference.peak), round(reference.seconds, 1)],
        ['kwatch replay of the whole recording', mb(replay.peak), round(replay.seconds, 1)],
        [`the same, node --max-old-space-size=${capMb}`, capped.failed ? `failed: ${capped.failed}` : mb(capped.peak), capped.failed ? '—' : round(capped.seconds, 1)],
      ],
    ),
    '',
    `Replay peak RSS / state peak RSS: ${round(ratio, 2)} (goal ≤ 2): ${verdict(ok)}. The replay with its old space capped at 2 × the state's peak RSS: ${capped.failed ? '**failed**' : '**completed**'}.`,
  ].join('\n');
  publish('recording-replay', { bytes, events, statePods: STATE_PODS, referencePeak: reference.peak, replayPeak: replay.peak, replaySeconds: replay.seconds, ratio, ok, cappedMb: capMb, cappedPeak: capped.peak, cappedFailed: capped.failed }, md);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
