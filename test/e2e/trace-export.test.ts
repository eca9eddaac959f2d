// --trace-out and kwatch trace end to end: a looping reconcile module, a looping --exec controller and a fight between
// two controller processes, run by the built CLI; the pictures checked against their formats' rules and
// `kwatch trace why` naming the loop and both writers of the fight.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { tempDir } from '../temp-dir.js';
import { BIN, childEnv, KUBECTL, kwatch, run, type Rec } from './events-helpers.js';
import { otlpProblems, otlpSpans, perfettoProblems } from '../trace-export/format-rules.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const k = kubectlSim({ seed: 3, nodes: 1, pods: 2, churn: 0 }, 'kwatch-e2e-trace-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: `${k.dir}/cache` });
const sh = (script: string) => ['--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)];
const records = (stdout: string): Rec[] => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);

/** Runs the CLI with its stdout going to `out` (a trace of every stage outgrows a pipe's buffer): exit code and stderr. */
function kwatchTo(out: string, args: string[], extraEnv: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(out, 'w');
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(extraEnv), stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

// Each test writes files of its own names and runs its own --sim or a fork (overlay) of the shared sim, on a
// ConfigMap of its own; they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('--trace-out and kwatch trace', () => {
  const dir = tempDir('kwatch-trace-out-');

  it('a looping reconcile module: ids and causes in -o ndjson, a well-formed Perfetto file, and trace why names the loop', async () => {
    const perfetto = join(dir, 'loop.json.gz');
    const ndjson = join(dir, 'loop.ndjson');
    // --once ends the looping run after --max-reconciles runs, however fast the machine: a fixed --for 2s gave a
    // loaded one fewer rounds.
    const r = await kwatchTo(ndjson, ['reconcile', 'deployments.apps', '--with', join(EXAMPLES, 'reconcilers', 'status-stamper.mjs'), '--sim', '-A', '--writes', 'overlay', '--once', '--loop-threshold', '3', '-o', 'ndjson', '--stages', 'all', '--trace-out', perfetto], {});
    expect(r.stderr).toMatch(/wrote \d+ trace records to .*loop\.json\.gz \(perfetto\)/);
    const all = records(readFileSync(ndjson, 'utf8'));
    // The --once report's row per key and the verdict record last come after the run, a verdict rather than trace
    // records: they have no id.
    const recs = all.filter((x) => x.id !== undefined);
    expect(all.filter((x) => x.id === undefined).map((x) => `${x.stage} ${x.op}`)).toEqual(expect.arrayContaining(['reconcile pending']));
    expect(all.filter((x) => x.id === undefined).every((x) => x.stage === 'reconcile' && (x.op === 'pending' || x.op === 'converged' || x.op === 'verdict'))).toBe(true);
    expect(all.at(-1)).toEqual(expect.objectContaining({ stage: 'reconcile', op: 'verdict', verdict: 'not-converged', exit: 1 }));
    const ids = recs.map((x) => x.id);
    expect(new Set(ids).size).toBe(recs.length);
    const byId = new Map(recs.map((x) => [x.id, x]));
    const write = recs.filter((x) => x.stage === 'reconcile' && x.op === 'write' && x.key === 'default/cart-api').at(-1)!;
    expect(byId.get((write.cause as number[])[0])).toMatchObject({ stage: 'reconcile', op: 'start', key: 'default/cart-api' });
    expect(recs.some((x) => x.stage === 'watch' && typeof x.echoOf === 'number' && byId.get(x.echoOf)?.op === 'write')).toBe(true);

    const file = JSON.parse(gunzipSync(readFileSync(perfetto)).toString('utf8'));
    expect(perfettoProblems(file)).toEqual([]);
    const events = file.traceEvents as { ph: string; cat?: string; name: string; flow_in?: boolean }[];
    for (const cat of ['reconcile', 'write', 'event', 'list']) expect(events.some((e) => e.ph === 'X' && e.cat === cat), cat).toBe(true);
    expect(events.some((e) => e.flow_in)).toBe(true);
    expect(events.some((e) => e.ph === 'C')).toBe(true);

    const why = await kwatch(['trace', 'why', 'default/cart-api', ndjson], {});
    expect(why.code).toBe(0);
    expect(why.stdout).toMatch(/^default\/cart-api: write #\d+ status\.conditions\[type=Stamped\]\.lastUpdateTime by status-stamper ← reconcile #\d+ ← MODIFIED@local-\d+ #\d+ echo of write #\d+ \(own\)/);
    expect(why.stdout).toMatch(/← … loop since write #\d+ \(\d+ rounds\)/);
    expect(why.stdout).toMatch(/^loop: status-stamper rewrote default\/cart-api \d+ times, each time after the echo of its own write/m);

    const otlp = join(dir, 'loop.otlp.jsonl');
    const c = await kwatch(['trace', 'convert', ndjson, '--to', 'otlp', '-o', otlp], {});
    expect(c.code).toBe(0);
    const spans = otlpSpans(readFileSync(otlp, 'utf8'));
    expect(otlpProblems(spans)).toEqual([]);
    const names = new Set(spans.map((s) => s.name));
    for (const n of ['k8s.watch.connection', 'k8s.watch.event', 'reconciling object']) expect(names.has(n), n).toBe(true);
    const reconcile = spans.find((s) => s.name === 'reconciling object' && (s as { links?: unknown[] }).links?.length)!;
    expect(JSON.stringify(reconcile)).toMatch(/"object\.ref".*"object\.reason"/);
  }, 60_000);

  it('a looping --exec controller: trace why follows the wire (events inferred to trigger each write) and names the loop', async () => {
    const script = 'kubectl create configmap trace-loop --from-literal=n=0 && kubectl get configmap trace-loop -w -o name --output-watch-events | while read -r line; do kubectl annotate --overwrite configmap trace-loop tick=$(date +%s%N) >/dev/null; done';
    const perfetto = join(dir, 'exec-loop.json');
    // The loop verdict ends the run; --quiet is a backstop long enough for one kubectl call on a loaded machine.
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', '--writes', 'overlay', '--once', '--quiet', '20s', '--max-wait', '25s', '--loop-threshold', '3', '-o', 'ndjson', '--trace-out', perfetto, ...sh(script)], env());
    const ndjson = join(dir, 'exec-loop.ndjson');
    writeFileSync(ndjson, r.stdout);
    expect(perfettoProblems(JSON.parse(readFileSync(perfetto, 'utf8')))).toEqual([]);
    const why = await kwatch(['trace', 'why', 'default/trace-loop', ndjson], {});
    expect(why.stdout).toMatch(/^default\/trace-loop: write #\d+ metadata\.annotations\.tick by kubectl\[\d+\] ← MODIFIED@\d+ #\d+ echo of write #\d+ \(own\)/);
    expect(why.stdout).toMatch(/^loop: kubectl\[\d+\] rewrote default\/trace-loop \d+ times, each time after the echo of its own write \(metadata\.annotations\.tick[,)]/m);
  }, 60_000);

  it('a fight between two controller processes: trace why names both writers, the HTML report has the fight finding', async () => {
    const fighter = join(EXAMPLES, 'controllers', 'annotation-fighter.mjs');
    const node = process.execPath;
    const html = join(dir, 'fight.html');
    // The run ends when both fighters have made their MAX_ROUNDS writes and exited; --quiet is only a backstop. Bob
    // starts only once alice's first write went through, as a loaded machine may start him late (with --quiet 3s that
    // ended the run before the fight): the order a fixed 4 s sleep gave, without its wait.
    const aliceLog = join(dir, 'alice.err');
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', '--writes', 'overlay', '--once', '--quiet', '20s', '--max-wait', '45s', '-o', 'ndjson', '--trace-out', html,
      ...sh(`kubectl create configmap trace-fight --from-literal=a=b >/dev/null && (MAX_ROUNDS=6 ${node} ${fighter} trace-fight alice 2>${aliceLog} & until grep -qs claimed ${aliceLog}; do sleep 0.1; done; MAX_ROUNDS=6 ${node} ${fighter} trace-fight bob & wait)`)], env());
    expect(readFileSync(aliceLog, 'utf8')).toMatch(/^alice: claimed trace-fight \(200\)$/m);
    const ndjson = join(dir, 'fight.ndjson');
    writeFileSync(ndjson, r.stdout);
    const why = await kwatch(['trace', 'why', 'default/trace-fight', ndjson], {});
    expect(why.stdout).toMatch(/^fight: annotation-fighter\.mjs\[\d+\] and annotation-fighter\.mjs\[\d+\] rewrite default\/trace-fight in turn, each after the echo of the other's write \(\d+ rounds; metadata\.annotations\["example\.com\/owner"\]/m);
    expect(why.stdout).toMatch(/echo of write #\d+ \(by annotation-fighter\.mjs\[\d+\]\)/);
    expect(readFileSync(html, 'utf8')).toMatch(/fight: annotation-fighter\.mjs\[\d+\] and annotation-fighter\.mjs\[\d+\] on default\/trace-fight/);
  }, 60_000);

  it('bad input is one line and exit 1', async () => {
    const [missing, notTrace, badName] = await Promise.all([
      kwatch(['trace', 'why', 'a/b', join(dir, 'missing.ndjson')], {}),
      run(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'run.js'), 'trace', 'convert', '/etc/hostname', '--to', 'html'], {}),
      kwatch(['events', 'pods', '--sim', '--trace-out', join(dir, 'x.txt')], {}),
    ]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cannot read .*missing\.ndjson: no such file\n$/) });
    expect(notTrace.code).toBe(1);
    expect(notTrace.stderr).toMatch(/^error: .*not a JSON line|^error: .*not a kwatch trace record/);
    expect(badName).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cannot tell the picture format from ".*x\.txt": name it \.json/) });
  }, 60_000);

  it('trace open serves a Perfetto file once to ui.perfetto.dev (CORS for it only), and prints an HTML report\'s address', async () => {
    const file = join(dir, 'tiny.json');
    writeFileSync(file, JSON.stringify({ traceEvents: [{ name: 'x', ph: 'X', ts: 1, dur: 1, pid: 1, tid: 1 }] }));
    // The HTML report's and the missing file's runs go beside the Perfetto one.
    const html = join(dir, 'tiny.html');
    writeFileSync(html, '<!doctype html><title>x</title>');
    const others = Promise.all([kwatch(['trace', 'open', html, '--no-browser'], {}), kwatch(['trace', 'open', join(dir, 'missing.otlp.jsonl'), '--no-browser'], {})]);
    const child = spawn(process.execPath, [BIN, 'trace', 'open', file, '--no-browser', '--port', '0'], { env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // A failed assertion below would leave it serving, waiting for its one fetch, for ever.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    await expect.poll(() => stdout, { timeout: 20_000 }).toMatch(/\n$/);
    const m = /^https:\/\/ui\.perfetto\.dev\/#!\/\?url=(http:\/\/127\.0\.0\.1:\d+\/tiny\.json)\n$/.exec(stdout);
    expect(m, stdout).not.toBeNull();
    const res = await fetch(m![1], { headers: { origin: 'https://ui.perfetto.dev' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://ui.perfetto.dev');
    expect(JSON.parse(await res.text())).toMatchObject({ traceEvents: [{ name: 'x' }] });
    // Fetched once: it stops by itself.
    expect(await exited).toBe(0);

    const [r, otlp] = await others;
    expect(r).toMatchObject({ code: 0, stdout: `file://${html}\n` });
    expect(otlp).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .*no such file\n$/) });
  }, 60_000);

  it('trace convert replays a recording through the pipeline: the report has a lane per recorded key', async () => {
    const rec = join(dir, 'pods.recording.ndjson');
    // Ended on a count, not a --for: the 3 pods' initial events and 7 changes of the churn after them.
    const r = await kwatch(['events', 'pods', '-A', '--sim', '--sim-pods', '3', '--sim-churn', '20', '--max-events', '10', '--record', rec, '-o', 'name'], {});
    expect(r.code).toBe(0);
    const html = join(dir, 'pods.html');
    const c = await kwatch(['trace', 'convert', rec, '--to', 'html', '-o', html], {});
    expect(c.stderr).toMatch(/wrote \d+ trace records to .*pods\.html \(html\)/);
    const page = readFileSync(html, 'utf8');
    const model = JSON.parse(/<script type="application\/json" id="model">(.*?)<\/script>/s.exec(page)![1]) as { lanes: { kind: string; id: string }[] };
    expect(model.lanes.filter((l) => l.kind === 'key').length).toBeGreaterThanOrEqual(3);
    expect(model.lanes.some((l) => l.kind === 'watch')).toBe(true);
  }, 60_000);
});
