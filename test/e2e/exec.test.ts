// kwatch reconcile --exec and kwatch proxy end to end: the built CLI stands between real clients (kubectl, driven as a
// controller would be, from a shell) and the embedded API server over HTTP; the sim, read with kubectl directly, shows
// what reached the cluster.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { KUBECTL, Running, kwatch, type Rec } from './events-helpers.js';

const k = kubectlSim({ seed: 3, nodes: 1, pods: 4, churn: 0 }, 'kwatch-e2e-exec-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: `${k.dir}/cache` });
const exec = (...args: string[]) => kwatch(['reconcile', '--exec', ...args], env());
/** A controller written as a shell script on kubectl (the kubeconfig kwatch wrote comes in through KUBECONFIG). */
const sh = (script: string) => ['--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)];

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

function records(stdout: string): Rec[] {
  return stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);
}

// Each test is its own kwatch process with its own endpoint and fork, on ConfigMaps of its own name (the one --writes
// apply run stores exec-many-* in the sim, which no other test lists), yet they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('kwatch reconcile --exec', { timeout: 60_000 }, () => {
  it('intercept (default): writes get the target\'s dry-run answer and never reach it; --once says they are pending (exit 1)', async () => {
    const r = await exec('-n', 'default', '--once', '--quiet', '1s', '-o', 'ndjson', ...sh('kubectl create configmap exec-intercept --from-literal=a=b && kubectl label namespace default checked=yes'));
    expect(r.stderr).toMatch(/writes intercept: answered with the target's dry run/);
    const recs = records(r.stdout);
    const writes = recs.filter((x) => x.op === 'write');
    expect(writes).toEqual([
      expect.objectContaining({ stage: 'endpoint', key: 'default/exec-intercept', verb: 'create', mode: 'intercept', code: 201, client: expect.stringMatching(/^kubectl\[\d+\]$/), resource: 'configmaps' }),
      expect.objectContaining({ key: 'default', verb: 'patch', mode: 'intercept', code: 200, diff: [expect.objectContaining({ path: 'metadata.labels.checked', new: 'yes' })] }),
    ]);
    expect(recs.filter((x) => x.op === 'pending').map((x) => x.key).sort()).toEqual(['default', 'default/exec-intercept']);
    expect(r.stderr).toMatch(/^not converged: 2 of 2 keys written would change the cluster \(writes intercept: nothing was stored\)$/m);
    expect(r.code).toBe(1);
    expect((await k.kubectl('get', 'configmap', 'exec-intercept')).code).not.toBe(0);
    expect((await k.kubectl('get', 'namespace', 'default', '-o', 'jsonpath={.metadata.labels.checked}')).stdout).toBe('');
  });

  it('overlay: the controller and kubectl wait see its writes through the fork; the target is untouched; --once converges (exit 0)', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', ...sh(
      'kubectl create configmap exec-overlay --from-literal=a=b && kubectl annotate configmap exec-overlay seen=yes && kubectl wait --for=jsonpath={.metadata.annotations.seen}=yes configmap/exec-overlay --timeout=15s',
    ));
    expect(r.stderr).toMatch(/^sh \| configmap\/exec-overlay condition met$/m);
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/exec-overlay\s+\d+\s+client=kubectl\[\d+\] verb=patch resource=configmaps mode=overlay code=200/);
    expect(r.stdout).toMatch(/metadata\.annotations: <none> → \{"seen":"yes"\}/);
    expect(r.stdout).toMatch(/endpoint\s+watch\s+default\s+\d+\s+client=kubectl\[\d+\] resource=configmaps event=start/);
    expect(r.stderr).toMatch(/^fork: 1 object differs from the target \(written locally\):\n {2}created configmaps default\/exec-overlay$/m);
    expect(r.stderr).toMatch(/^converged: 1 key written, no write pending$/m);
    expect(r.code).toBe(0);
    expect((await k.kubectl('get', 'configmap', 'exec-overlay')).code).not.toBe(0);
  });

  it('overlay: kubectl rollout status (client-go\'s watch-until-condition) sees the status a controller writes in the fork', async () => {
    // The fork runs no deployment controller: the script plays it, writing the rolled-out status through /status once
    // rollout status has printed its first "Waiting for …" line: it has listed by then, so the status change reaches
    // it on the watch it opens from that list's resourceVersion (no fixed sleep to guess when it started watching).
    const status = JSON.stringify({ status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } });
    const r = await exec('-n', 'default', '--writes', 'overlay', ...sh(
      `kubectl create deployment exec-roll --image=nginx --replicas=2 && kubectl rollout status deployment/exec-roll --timeout=20s | { patched=; while read -r line; do echo "$line"; if [ -z "$patched" ]; then patched=1; kubectl patch deployment exec-roll --subresource=status --type=merge -p '${status}' >/dev/null; fi; done; }`,
    ));
    expect(r.stderr).toMatch(/^sh \| Waiting for deployment /m);
    expect(r.stderr).toMatch(/^sh \| deployment "exec-roll" successfully rolled out$/m);
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/exec-roll\s+\d+\s+client=kubectl\[\d+\] verb=patch resource=deployments\.apps mode=overlay code=200 subresource=status/);
    expect(r.code).toBe(0);
    expect((await k.kubectl('get', 'deployment', 'exec-roll')).code).not.toBe(0);
  });

  it('server-dry-run: the target\'s refusal (422) reaches the controller and the trace; --stages endpoint:write+relist shows only those ops of the wire', async () => {
    // One run shows both: the dry-run answers (an accepted create and the 422) are write records, which the stage
    // filter keeps; the script's list is an op it leaves out.
    const r = await exec('-n', 'default', '--writes', 'server-dry-run', '--stages', 'endpoint:write+relist', '-o', 'ndjson', ...sh('kubectl get configmaps -o name >/dev/null; kubectl create configmap exec-ops --from-literal=a=b; kubectl create configmap Not_Valid --from-literal=a=b; exit 0'));
    expect(r.code, r.stderr).toBe(0);
    const recs = records(r.stdout);
    const w = recs.find((x) => x.op === 'write' && x.key !== 'default/exec-ops');
    expect(w).toMatchObject({ verb: 'create', mode: 'server-dry-run', code: 422, error: expect.stringMatching(/Invalid value: "Not_Valid"/) });
    expect(r.stderr).toMatch(/^sh \| error: failed to create configmap: ConfigMap "Not_Valid" is invalid: metadata\.name: Invalid value/m);
    expect(recs).toContainEqual(expect.objectContaining({ op: 'write', key: 'default/exec-ops', verb: 'create' }));
    expect(recs.filter((x) => x.op !== 'write' && x.op !== 'relist')).toEqual([]);
  });

  it('an injected 410 on the watch makes the client list again: a relist record names why', async () => {
    // kubectl get -w ends on a 410 (it does not relist by itself): the script lists again, as a controller would. The
    // relist is the list (client-session.ts listStarted), so the script ends there rather than watching on for a fixed
    // time. expire@100ms fires on the first watch whenever it opens: a @TIME fault due while no watch is open fires
    // on the next one (watch-faults.ts), so the watch's start time does not matter.
    const r = await exec('-n', 'default', '--inject', 'expire@100ms', '-o', 'ndjson', ...sh('timeout 20 kubectl get configmaps -w; kubectl get configmaps -o name >/dev/null; exit 0'));
    const recs = records(r.stdout);
    expect(recs).toContainEqual(expect.objectContaining({ op: 'fault', fault: 'expire@100ms', client: expect.stringMatching(/^kubectl\[\d+\]$/) }));
    expect(recs).toContainEqual(expect.objectContaining({ op: 'watch', type: 'ERROR', code: 410 }));
    expect(recs).toContainEqual(expect.objectContaining({ op: 'watch', event: 'close', reason: '410' }));
    expect(recs).toContainEqual(expect.objectContaining({ op: 'relist', resource: 'configmaps', reason: expect.stringMatching(/^it was sent 410 Gone/) }));
    // The summary line describes the controller (its requests, events, relists, bytes), not kwatch's own informers.
    expect(r.stderr).toMatch(/^requests=\d+ events=[1-9]\d* relists=1 expired=1 writes=0 bytes=[\d.]+k?B elapsed=[\d.]+s$/m);
  });

  it('write faults: the Nth write is answered 409 Conflict; a failing controller fails the run with its own exit code', async () => {
    const r = await exec('-n', 'default', '--inject', 'conflict@1', ...sh('kubectl create configmap exec-conflict --from-literal=a=b'));
    expect(r.stdout).toMatch(/endpoint\s+fault\s+.*fault=conflict@1/);
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/exec-conflict\s+client=kubectl\[\d+\] verb=create resource=configmaps mode=intercept code=409/);
    expect(r.stderr).toMatch(/^sh \| error: failed to create configmap: Operation cannot be fulfilled on configmaps "exec-conflict": .*\(injected by kwatch: conflict@1\)$/m);
    expect(r.stderr).toMatch(/^the controller exited with code 1; its last lines:$/m);
    // One exit-code table for --with and --exec: a failed run is 2, the controller's own code is named on the last line.
    expect(lastLine(r.stderr)).toBe('failed: the controller exited with code 1');
    expect(r.code).toBe(2);
  });

  it('never converged after the controller failed: --once names its exit code on the last line, exit 2', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', ...sh('kubectl create configmap exec-fails --from-literal=a=b && exit 3'));
    expect(r.stderr).not.toMatch(/^converged/m);
    expect(lastLine(r.stderr)).toBe('failed: the controller exited with code 3');
    expect(r.code).toBe(2);
  });

  it('a write kwatch refuses itself is an http record with refused= and fails the run (exit 2), even when the controller exits 0', async () => {
    const script = `url=$(sed -n 's/^ *server: //p' "$1"); curl -s --cacert "$1.ca.crt" -o /dev/null -w "status=%{http_code}\\n" -X POST -H 'Content-Type: text/html' --data '{"metadata":{"name":"exec-html"}}' "$url/api/v1/namespaces/default/configmaps"; kubectl create configmap exec-fine --from-literal=a=b`;
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', '-o', 'ndjson', '--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL), 'controller', '{kubeconfig}');
    expect(r.stderr).toMatch(/^sh \| status=415$/m);
    expect(records(r.stdout)).toContainEqual(expect.objectContaining({ op: 'http', method: 'POST', path: '/api/v1/namespaces/default/configmaps', status: 415, refused: 'UnsupportedMediaType', client: expect.stringMatching(/^curl\[\d+\]$/) }));
    expect(r.stderr).toMatch(/^refused: kwatch answered curl\[\d+\]'s POST \/api\/v1\/namespaces\/default\/configmaps itself: 415 UnsupportedMediaType: /m);
    expect(r.stderr).not.toMatch(/^converged/m);
    expect(lastLine(r.stderr)).toMatch(/^failed: kwatch refused 1 of the controller's writes \(POST \/api\/v1\/namespaces\/default\/configmaps: 415 UnsupportedMediaType\)/);
    expect(r.code).toBe(2);
  });

  it('a stale write (an update from an older resourceVersion than the client was sent) is named before its 409', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', '-o', 'ndjson', ...sh(
      'kubectl create configmap exec-stale --from-literal=a=b && kubectl get configmap exec-stale -o json > "$TMPDIR_STALE" && kubectl annotate configmap exec-stale x=1 && kubectl get configmap exec-stale -o name && kubectl replace -f "$TMPDIR_STALE"; exit 0'.replaceAll('$TMPDIR_STALE', `${k.dir}/stale.json`),
    ));
    const recs = records(r.stdout);
    const stale = recs.find((x) => x.op === 'stale-write');
    expect(stale).toMatchObject({ key: 'default/exec-stale', client: expect.stringMatching(/^kubectl\[\d+\]$/), note: expect.stringMatching(/a 409 Conflict follows$/) });
    expect(recs).toContainEqual(expect.objectContaining({ op: 'write', verb: 'update', key: 'default/exec-stale', code: 409 }));
    // kubectl's own annotate was stored after the copy it replaces from: that is also a stale read of its own write.
    const own = recs.find((x) => x.op === 'write' && x.verb === 'patch' && x.key === 'default/exec-stale')!;
    expect(recs.find((x) => x.op === 'stale-read')).toMatchObject({ key: 'default/exec-stale', client: expect.stringMatching(/^kubectl\[\d+\]$/), ownWrite: own.rv });
    expect(recs).toContainEqual(expect.objectContaining({ op: 'write', verb: 'update', key: 'default/exec-stale', code: 409, staleRead: own.rv }));
  });

  it('after= on a write lists the events since that key\'s previous write, not older ones', async () => {
    // Each write waits until the watch has printed the event of the one before (seen: N lines of exec-after), not a
    // fixed time: the watch has listed (a probe ConfigMap shows) before the create, so the create's ADDED comes on it
    // as an event, older than the last write's previous one.
    const seen = (n: number) => `until [ "$(grep -c '^configmap/exec-after$' "$f")" -ge ${n} ]; do sleep 0.05; done`;
    const script = `f=${k.dir}/exec-after.watch; kubectl get configmaps -w -o name >"$f" & w=$!; kubectl create configmap exec-after-probe >/dev/null && until grep -q exec-after-probe "$f"; do sleep 0.05; done && kubectl create configmap exec-after && ${seen(1)} && kubectl annotate configmap exec-after a=1 && ${seen(2)} && kubectl annotate configmap exec-after b=2; kill $w`;
    const r = await exec('-n', 'default', '--writes', 'overlay', '-o', 'ndjson', ...sh(script));
    const recs = records(r.stdout);
    const writes = recs.filter((x) => x.op === 'write' && x.key === 'default/exec-after');
    expect(writes.map((w) => w.verb)).toEqual(['create', 'patch', 'patch']);
    // The create's ADDED was sent on the watch: an older event the last write's after= must leave out.
    expect(recs).toContainEqual(expect.objectContaining({ op: 'watch', type: 'ADDED', key: 'default/exec-after' }));
    const last = writes[2].after as string[];
    expect(last.length).toBeGreaterThan(0);
    expect(last.every((t) => t.startsWith('MODIFIED '))).toBe(true);
  });

  it('a controller that rewrites its key after every echo of its own write is reported as a loop (exit 1)', async () => {
    // Each event for the ConfigMap (its own write's echo included) makes the script write a new value.
    const script = 'kubectl create configmap exec-loop --from-literal=n=0 && kubectl get configmap exec-loop -w -o name --output-watch-events | while read -r line; do kubectl annotate --overwrite configmap exec-loop tick=$(date +%s%N) >/dev/null; done';
    // The loop verdict ends the run; --quiet is a backstop long enough for one kubectl call on a loaded machine.
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '20s', '--max-wait', '25s', '--loop-threshold', '3', '-o', 'ndjson', ...sh(script));
    // --once stops at the loop: there is nothing left to wait for.
    expect(r.stderr).toMatch(/^not converged: 1 looping, 1 key written$/m);
    const loop = records(r.stdout).find((x) => x.op === 'loop');
    expect(loop).toMatchObject({ key: 'default/exec-loop', client: expect.stringMatching(/^kubectl\[\d+\]$/), fields: ['metadata.annotations.tick'] });
    expect(r.stderr).toMatch(/^loop: kubectl\[\d+\] configmaps default\/exec-loop rewrote itself \d+ times in a row after the echo of its own write; changing every round: metadata\.annotations\.tick$/m);
    expect(r.code, r.stderr).toBe(1);
  });

  it('bad input: a command that does not exist exits 127 in one line; no command after -- is a usage error', async () => {
    const [missing, none] = await Promise.all([exec('--', 'no-such-controller-binary'), exec()]);
    // One line: no banner, no endpoint started for a command that cannot run.
    expect(missing.stderr).toBe('error: no-such-controller-binary: command not found\n');
    expect(missing.code).toBe(127);
    expect(none.stderr).toMatch(/^error: --exec needs the controller's command after --/m);
    expect(none.code).toBe(1);
  });

  it('bad input says what to do: the controller\'s command given without -- before it; a script that is not executable', async () => {
    const script = k.file('not-executable.py', 'print("never run")\n');
    const [noDash, notExecutable] = await Promise.all([
      kwatch(['reconcile', '--exec', '-n', 'default', '--once', '/usr/bin/python3', script], env()),
      exec('--', script),
    ]);
    expect(noDash.stderr).toBe(`error: --exec runs the command after --, and there is none: put -- before it (kwatch reconcile --exec [FLAGS] -- /usr/bin/python3 ${script})\n`);
    expect(noDash.code).toBe(1);
    expect(notExecutable.stderr).toBe(`error: ${script}: permission denied (not executable: chmod +x ${script}, or put its interpreter first, e.g. -- python3 ${script})\n`);
    expect(notExecutable.code).toBe(126);
  });
});

describe('reconcile flags on the wire', { timeout: 60_000 }, () => {
  it('--expect checks the fork under overlay: exit 3 with the per-field diff; met, exit 0', async () => {
    const expectFile = `${k.dir}/exec-expect.yaml`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(expectFile, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: exec-expect, namespace: default}\ndata: {a: c}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: exec-never, namespace: default}\nabsent: true\n');
    // The met case has a file of its own, so both runs go at once.
    const metFile = `${k.dir}/exec-expect-met.yaml`;
    writeFileSync(metFile, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: exec-expect2, namespace: default}\ndata: {a: b}\n');
    const [r, ok] = await Promise.all([
      exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', '--expect', expectFile, ...sh('kubectl create configmap exec-expect --from-literal=a=b')),
      exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', '--expect', metFile, ...sh('kubectl create configmap exec-expect2 --from-literal=a=b')),
    ]);
    expect(r.stderr).toMatch(/^expectation not met: configmaps default\/exec-expect \(.*exec-expect\.yaml document 1\)\n {2}data\.a: want "c", got "b"$/m);
    // The last line, after the verdict line (as in module mode): the run ends on what failed it.
    expect(r.stderr).toMatch(/^converged: 1 key written, no write pending\nexpectation not met: /m);
    expect(lastLine(r.stderr)).toBe('expectations: 1 of 2 not met');
    expect(r.code).toBe(3);
    expect(lastLine(ok.stderr)).toBe('expectations: 1 of 1 met');
    expect(ok.code).toBe(0);
  });

  it('--max-writes refuses the writes past it on the wire and fails the run (exit 2); --qps answers 429 with Retry-After, which kubectl waits out', async () => {
    const many = 'for i in 1 2 3 4 5 6; do kubectl create configmap exec-many-$i --from-literal=a=b || exit 0; done; sleep 30';
    // The paced run (server-dry-run, its own names) goes beside the capped one. Its second write must come before the
    // bucket refills: two kubectl runs were too far apart at --qps 1 on a loaded host (no 429; seen at load 30), and one
    // write every 5 s made kubectl wait out a 5 s Retry-After. So one kubectl sends both writes back to back (one
    // create -f of two ConfigMaps) and --qps 0.5 leaves 2 s between them.
    const paced = k.file('exec-paced.yaml', ['exec-paced-1', 'exec-paced-2'].map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\ndata: {a: b}\n`).join('---\n'));
    const pacedRun = exec('-n', 'default', '--writes', 'server-dry-run', '--qps', '0.5', '--burst', '1', '-o', 'ndjson', ...sh(`kubectl create -f ${paced}`));
    const r = await exec('-n', 'default', '--writes', 'apply', '--yes', '--max-writes', '3', '-o', 'ndjson', ...sh(many));
    const writes = records(r.stdout).filter((x) => x.op === 'write');
    expect(writes.filter((w) => w.code === 201)).toHaveLength(3);
    expect(records(r.stdout)).toContainEqual(expect.objectContaining({ op: 'http', method: 'POST', status: 429, refused: 'TooManyRequests' }));
    expect(lastLine(r.stderr)).toMatch(/^failed: --max-writes 3 reached: the controller sent 3 writes and kwatch refused the next and stopped the run/);
    expect(r.code).toBe(2);
    expect((await k.kubectl('get', 'configmap', 'exec-many-4')).code).not.toBe(0);

    const pacedEnd = await pacedRun;
    const recs = records(pacedEnd.stdout);
    expect(recs).toContainEqual(expect.objectContaining({ op: 'http', method: 'POST', status: 429, refused: 'TooManyRequests' }));
    expect(recs.filter((x) => x.op === 'write' && x.code === 201)).toHaveLength(2);
    expect(pacedEnd.code, pacedEnd.stderr).toBe(0);
  });

  it('a flag of the module runner given with --exec is one line, exit 1', async () => {
    // One of them through the CLI; each flag's own refusal, both spellings, in process (test/cli/exec-module-only-flags.test.ts).
    const r = await exec('--once', '--concurrency', '2', '--', 'true');
    expect(r.stderr).toBe('error: --concurrency acts on the reconcile loop of a --with module; a controller process runs its own (leave it out with --exec)\n');
    expect(r.code).toBe(1);
  });
});

describe('the --once verdict', () => {
  /** A client named by its User-Agent that reads the object, then sets data.x (a field two such clients fight over). */
  const curlSet = (agent: string, value: string) => `curl -s --cacert "$1.ca.crt" -A ${agent} -o /dev/null "$url/api/v1/namespaces/default/configmaps/exec-fight" && curl -s --cacert "$1.ca.crt" -A ${agent} -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' --data '{"data":{"x":"${value}"}}' "$url/api/v1/namespaces/default/configmaps/exec-fight"`;

  it('says the rule it settled on; a heartbeat (a key rewritten at a steady pace, no event behind it) is periodic: it neither blocks settling nor counts as a loop', async () => {
    const script = 'kubectl get configmaps -w >/dev/null & kubectl create configmap exec-work --from-literal=a=b && kubectl create configmap exec-beat && while true; do sleep 2; kubectl annotate --overwrite configmap exec-beat renewTime=$(date +%s%N) >/dev/null; done';
    // The heartbeat's create is its first beat (it sleeps before each renewal, not after): four writes at a steady pace
    // make it periodic (wire-trace.ts PERIODIC_WRITES) at the third renewal, and an uneven gap under load leaves two
    // more tries before the loop check would count its own echoes past --loop-threshold (with an immediate first
    // renewal, one). The 2 s pace stays: the gaps (sleep + one kubectl run) may differ by at most 1.5x, and a kubectl
    // run's time varies by up to a second at load. --quiet is 6 s, not 3: until the heartbeat is known periodic each
    // beat is a write, and one gap of 2 s + a slow kubectl run over --quiet settled the run before that (seen at load
    // 18, a kubectl wrapper in the way). Once it is known periodic the run settles at once (the other write is older
    // than --quiet by then), so the longer --quiet costs no time.
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '6s', '--max-wait', '40s', '--loop-threshold', '2', ...sh(script));
    expect(r.stderr).toMatch(/^periodic: kubectl\[\d+\] configmaps default\/exec-beat written every ~[\d.]+ s with no event triggering it \(a lease renewal or a heartbeat\): neither a loop nor waited for$/m);
    expect(r.stderr).not.toMatch(/^loop:/m);
    expect(r.stderr).toMatch(/^settled: 6 s without writes\nconverged: 1 key written, no write pending$/m);
    expect(r.code).toBe(0);
  }, 60_000);

  it('a run that saw no write says it was idle, with its own exit code (4)', async () => {
    // The controller never writes, so how long --quiet is does not change the verdict: a short one ends the run sooner.
    const r = await exec('-n', 'default', '--once', '--quiet', '500ms', ...sh('kubectl get configmaps -w'));
    expect(lastLine(r.stderr)).toBe('idle: no write in 0.5 s — the controller may not have started its work; raise --quiet');
    expect(r.code).toBe(4);
  });

  it('-o ndjson ends with one verdict record: the verdict, its exit code, what ended the run and the last line, for a CI step to read', async () => {
    const [converged, idle, failed] = await Promise.all([
      exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '1s', '-o', 'ndjson', ...sh('kubectl create configmap exec-verdict --from-literal=a=b && kubectl get configmaps -w')),
      exec('-n', 'default', '--once', '--quiet', '500ms', '-o', 'ndjson', ...sh('kubectl get configmaps -w')),
      exec('-n', 'default', '--once', '-o', 'ndjson', ...sh('exit 3')),
    ]);
    const last = (r: { stdout: string }) => JSON.parse(lastLine(r.stdout)) as Rec;
    expect(last(converged)).toEqual(expect.objectContaining({ stage: 'endpoint', op: 'verdict', key: null, verdict: 'converged', exit: 0, settled: 'quiet', mode: 'overlay', message: 'converged: 1 key written, no write pending' }));
    expect(converged.code).toBe(0);
    expect(last(idle)).toEqual(expect.objectContaining({ op: 'verdict', verdict: 'idle', exit: 4, settled: 'quiet', mode: 'intercept', message: lastLine(idle.stderr) }));
    expect(idle.code).toBe(4);
    expect(last(failed)).toEqual(expect.objectContaining({ op: 'verdict', verdict: 'errors', exit: 2, settled: 'exited', message: 'failed: the controller exited with code 3' }));
    expect(failed.code).toBe(2);
    for (const r of [converged, idle, failed]) expect(records(r.stdout).filter((x) => x.op === 'verdict')).toHaveLength(1);
  }, 60_000);

  it('a controller that never opens a watch is judged at --max-wait, and the line says so (and not "still writing" when nothing is)', async () => {
    // A write in the last 10 s before --max-wait counts as still being written: this one is made at the start, 15 s before.
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--max-wait', '15s', ...sh('kubectl create configmap exec-poller --from-literal=a=b && sleep 600'));
    expect(r.stderr).toMatch(/^stopped: --max-wait 15 s reached and the controller never opened a watch, so it never synced \(one that only polls is judged at --max-wait: lower it\)\nconverged: 1 key written, no write pending \(stopped at --max-wait\)$/m);
    expect(r.code).toBe(0);
  }, 60_000);

  // Holes in the verdict a CI gate relies on, found by using it as a new user would: each passed --once (exit 0).
  it('a controller that exits 0 at once, having watched and written nothing, is idle (exit 4), not converged', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', ...sh('kubectl get configmapz -o name 2>/dev/null || true'));
    expect(lastLine(r.stderr)).toBe('idle: the controller never opened a watch and wrote nothing before it exited — it may not have started its work (--expect judges the end state it leaves)');
    expect(r.code).toBe(4);
  }, 60_000);

  it('a controller that never connects (hung before its first request) is idle at --max-wait (exit 4), not converged', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--max-wait', '2s', '--', 'sleep', '600');
    expect(lastLine(r.stderr)).toMatch(/^idle: no request reached the endpoint/);
    expect(r.code).toBe(4);
  }, 60_000);

  it('two clients alternating on one field are a fight naming both and the field (exit 1); a refused write is failed, not a no-op', async () => {
    // The script's exit ends the run, after all six writes. It used to settle on --quiet 2s with a watch open, and on a
    // loaded host a gap of 2 s between two curl runs settled it before the third change of hands (no fight line):
    // --quiet is now only a backstop, far off.
    const script = `url=$(sed -n 's/^ *server: //p' "$1"); kubectl create configmap exec-fight --from-literal=x=0 && for i in 1 2 3; do ${curlSet('alpha', 'a')} && ${curlSet('beta', 'b')}; done`;
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '30s', '--max-wait', '40s', '--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL), 'controller', '{kubeconfig}');
    expect(r.stderr).toMatch(/^stopped: the controller exited$/m);
    expect(r.stderr).toMatch(/^fight: curl\[\d+\] and curl\[\d+\] keep rewriting data\.x of configmaps default\/exec-fight, each undoing the other \(\d+ changes of hands\)$/m);
    expect(lastLine(r.stderr)).toMatch(/^not converged: 1 fight between clients over one field/);
    expect(r.stdout).toMatch(/configmaps\s+│\s+default\/exec-fight\s+│\s+\d+\s+│\s+data\.x\s+│\s+fight/);
    expect(r.code).toBe(1);

    // Ended by the script's exit too (a watch and --quiet 1s would take the run as idle if the create came late); it
    // exits 0, so the exit code 2 is the refused write's, not a failed controller's.
    const refused = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '30s', '--max-wait', '40s', '--inject', 'conflict@1', ...sh('kubectl create configmap exec-refused; exit 0'));
    expect(refused.stdout).toMatch(/default\/exec-refused\s+│\s+1 \(1 failed\)\s+│\s+-\s+│\s+failed: 409 \(injected\)/);
    expect(refused.stderr).not.toMatch(/the controller exited with code/);
    expect(refused.code).toBe(2);
  }, 60_000);

  it('after an injected expire, a watch from the expired resourceVersion gets 410 again: rewatch-expired, never converged', async () => {
    const watchFrom = 'kubectl get --raw "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$rv"';
    // expire@100ms fires on the first watch whenever it opens (a @TIME fault due while no watch is open waits for the
    // next one: watch-faults.ts), and the script's exit ends the run (--quiet, far off, is a backstop): no fixed wait.
    const script = `kubectl create configmap exec-rewatch && rv=$(kubectl get --raw /api/v1/namespaces/default/configmaps | grep -o '"resourceVersion":"[0-9]*"' | head -1 | tr -dc 0-9) && ${watchFrom}; ${watchFrom}; exit 0`;
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '30s', '--max-wait', '40s', '--inject', 'expire@100ms', '-o', 'ndjson', ...sh(script));
    const recs = records(r.stdout);
    expect(recs).toContainEqual(expect.objectContaining({ op: 'rewatch-expired', client: expect.stringMatching(/^kubectl\[\d+\]$/), resource: 'configmaps' }));
    expect(r.stderr).toMatch(/^rewatch-expired: kubectl\[\d+\] watched configmaps again from resourceVersion \d+, though it was sent 410 Gone at \d+: a reflector must list anew$/m);
    expect(lastLine(r.stderr)).toMatch(/^not converged: 1 watch from a resourceVersion already expired \(rewatch-expired\)/);
    expect(r.code).toBe(1);
  }, 60_000);
});

describe('--sim-objects', { timeout: 60_000 }, () => {
  it('seeds --sim before the controller starts (exec and module mode); seeded objects are not the controller\'s writes; --once names the controller\'s own exit as what ended the run, not an interruption', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = `${k.dir}/seed.yaml`;
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: seeded-cm, namespace: shop}\ndata: {x: "1"}\n---\napiVersion: v1\nkind: ConfigMapList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: seeded-two, namespace: shop}}\n');
    const module = `${k.dir}/seed-module.mjs`;
    writeFileSync(module, "export default { for: 'configmaps', reconcile() { return {}; } };\n");
    // Three runs, each with its own --sim: at once.
    const [r, m, missing] = await Promise.all([
      // The script's exit ends the run (--quiet, far off, is a backstop): no watch to settle on, no sleep.
      kwatch(['reconcile', '--exec', '--sim', '--sim-objects', file, '-n', 'shop', '--writes', 'overlay', '--once', '--quiet', '30s', '--max-wait', '40s', '-o', 'ndjson', ...sh('kubectl get configmaps -o name; kubectl label configmap seeded-cm seen=yes')], {}),
      kwatch(['reconcile', 'configmaps', '--with', module, '--sim', '--sim-pods', '0', '--sim-objects', file, '-n', 'shop', '--once', '-o', 'ndjson'], {}),
      kwatch(['reconcile', '--exec', '--sim', '--sim-objects', `${k.dir}/none.yaml`, '--', 'true'], {}),
    ]);
    expect(r.stderr).toMatch(/^sh \| configmap\/seeded-cm$/m);
    expect(r.stderr).toMatch(/^sh \| configmap\/seeded-two$/m);
    expect(records(r.stdout).filter((x) => x.op === 'write').map((x) => `${x.verb} ${x.key}`)).toEqual(['patch shop/seeded-cm']);
    expect(r.code).toBe(0);
    // --quiet is far off, so this run can only end by the controller exiting; that exit used to win the race against
    // the settle loop's next look and read "stopped: interrupted before it settled".
    expect(r.stderr).toMatch(/^stopped: the controller exited$/m);
    expect(r.stderr).not.toMatch(/interrupted/);

    expect(records(m.stdout).filter((x) => x.stage === 'reconcile' && x.op === 'converged').map((x) => x.key).sort()).toEqual(expect.arrayContaining(['shop/seeded-cm', 'shop/seeded-two']));

    expect(missing.stderr).toBe(`error: --sim-objects ${k.dir}/none.yaml: no such file or directory\n`);
  });
});

describe('the endpoint refuses other local processes', { timeout: 60_000 }, () => {
  it('without the secret path or token of the kubeconfig it wrote, a request is 401; {kubeconfig} in ARGS is that file', async () => {
    const script = `url=$(sed -n 's/^ *server: //p' "$1"); base=\${url%/kwatch-*}; curl -s -o /dev/null -w "bare=%{http_code}\\n" "$base/api/v1/namespaces"; curl -s -o /dev/null -w "secret=%{http_code}\\n" "$url/api/v1/namespaces"`;
    const r = await exec('--no-tls', '--', 'sh', '-c', script, 'controller', '{kubeconfig}');
    expect(r.stderr).toMatch(/^sh \| bare=401$/m);
    expect(r.stderr).toMatch(/^sh \| secret=200$/m);
    // The refusal is on the wire trace too, without the secret.
    expect(r.stdout).toMatch(/endpoint\s+http\s+client=curl method=GET path=\/api\/v1\/namespaces status=401 ms=\d+ refused=Unauthorized error=/);
    const token = /token: (\S+)/.exec(r.stdout);
    expect(token).toBeNull();
  });
});

describe('the bearer token alone is enough (HTTPS, the default)', { timeout: 60_000 }, () => {
  it('kubectl get --raw /apis, which drops the server URL\'s path, is answered; a wrong token is 401', async () => {
    const script = `kubectl get --raw /apis | head -c 40; echo; kubectl --token wrong-token get --raw /apis 2>&1 | tail -1`;
    const r = await exec('--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL));
    expect(r.stderr).toMatch(/^kwatch: endpoint https:\/\/127\.0\.0\.1:\d+ → /m);
    expect(r.stderr).toMatch(/^sh \| \{"kind":"APIGroupList"/m);
    expect(r.stderr).toMatch(/^sh \| error: You must be logged in to the server \(kwatch endpoint: /m);
    expect(r.code).toBe(0);
  });
});

describe('kwatch proxy', { timeout: 60_000 }, () => {
  it('serves a controller started elsewhere through --kubeconfig-out until stopped, and never replaces a file it did not write', async () => {
    const own = k.file('user-kubeconfig', 'apiVersion: v1\nkind: Config\n');
    const refused = await kwatch(['proxy', '--kubeconfig-out', own, '--for', '1s'], env());
    expect(refused.stderr).toMatch(/^error: --kubeconfig-out .* exists and is not a kubeconfig kwatch wrote: choose another path, or add --force to replace it$/m);
    expect(refused.code).toBe(1);

    const out = `${k.dir}/proxy.kubeconfig`;
    const proxy = new Running(['proxy', '--kubeconfig-out', out, '-o', 'ndjson'], env());
    // It names the file once written (its endpoint listens by then): no kubectl run per poll before that.
    await proxy.until(() => /^kwatch: kubeconfig /m.test(proxy.stderr), 'the proxy\'s kubeconfig', 20_000);
    const got = await pollKubectl(out, ['get', 'namespaces', '-o', 'name']);
    expect(got).toMatch(/namespace\/default/);
    await proxy.waitFor((x) => x.op === 'list' && x.resource === 'namespaces', 'the proxy\'s list record');
    expect((await proxy.stop('SIGINT')).code).toBe(0);
    expect(proxy.records).toContainEqual(expect.objectContaining({ op: 'list', resource: 'namespaces', client: 'kubectl' }));
    // Its own file it may replace.
    // Its start is what is checked (the file replaced, exit 0), not how long it serves.
    const again = await kwatch(['proxy', '--kubeconfig-out', out, '--for', '1ms'], env());
    expect(again.code).toBe(0);
  }, 60_000);
});

describe('kwatch sim --mirror', () => {
  it('serves a copy-on-write fork of a cluster: reads mirrored, writes local only, and at exit the objects that diverged', async () => {
    const out = `${k.dir}/mirror.kubeconfig`;
    const mirror = new Running(['sim', '--mirror', '--kubeconfig', k.kubeconfig, '--kubeconfig-out', out, '--mirror-resources', 'configmaps,namespaces'], env());
    try {
      // kwatch sim --wait accepts a mirror's kubeconfig (its endpoint's token, no control endpoint).
      const waited = await kwatch(['sim', '--wait', '--kubeconfig-out', out], env());
      expect(waited.stdout).toMatch(/^kwatch sim at https?:\/\/127\.0\.0\.1:\d+\/kwatch-\S+ is ready/m);
      expect(waited.code).toBe(0);
      expect(await pollKubectl(out, ['get', 'namespaces', '-o', 'name'])).toMatch(/namespace\/default/);
      const mirrored = await pollKubectl(out, ['get', 'configmaps', '-n', 'default', '-o', 'name']);
      expect(mirrored).toBe((await k.kubectl('get', 'configmaps', '-n', 'default', '-o', 'name')).stdout);
      expect(await pollKubectl(out, ['create', 'configmap', 'mirror-local', '-n', 'default', '--from-literal=a=b'])).toMatch(/created/);
      expect(await pollKubectl(out, ['get', 'configmap', 'mirror-local', '-n', 'default', '-o', 'name'])).toBe('configmap/mirror-local\n');
      expect((await k.kubectl('get', 'configmap', 'mirror-local', '-n', 'default')).code).not.toBe(0);
      // A kind left out of --mirror-resources is served from what is written locally only.
      expect(await pollKubectl(out, ['get', 'secrets', '-n', 'default', '-o', 'name'])).toBe('');
    } finally {
      const end = await mirror.stop('SIGINT');
      expect(end.code).toBe(0);
    }
    expect(mirror.stderr).toMatch(/^fork: 1 object differs from the target \(written locally\):\n {2}created configmaps default\/mirror-local$/m);
    expect(mirror.stderr).toMatch(/kwatch: secrets is not mirrored \(--mirror-resources\)/);
    expect(mirror.stderr).toMatch(/^kwatch: mirror http:\/\/127\.0\.0\.1:\d+ → context/m);
  }, 30_000);
});

/** kubectl with the proxy's kubeconfig, retried until the proxy has written it and answers (bounded). */
async function pollKubectl(kubeconfig: string, args: string[]): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await new Promise<{ code: number; stdout: string }>((resolve) => execFile(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { timeout: 10_000 }, (err, stdout) => resolve({ code: err ? 1 : 0, stdout })));
    if (r.code === 0) return r.stdout;
    if (Date.now() > deadline) throw new Error(`kubectl ${args.join(' ')} through the proxy did not succeed`);
    await new Promise((res) => setTimeout(res, 200));
  }
}
