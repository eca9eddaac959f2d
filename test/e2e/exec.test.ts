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

function records(stdout: string): Rec[] {
  return stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);
}

describe('kwatch reconcile --exec', () => {
  it('intercept (default): writes get the target\'s dry-run answer and never reach it; --once says they are pending (exit 1)', async () => {
    const r = await exec('-n', 'default', '--once', '--quiet', '1s', '-o', 'ndjson', ...sh('kubectl create configmap exec-intercept --from-literal=a=b && kubectl label namespace default checked=yes'));
    expect(r.stderr).toMatch(/writes intercept: answered with the target's dry run/);
    const recs = records(r.stdout);
    const writes = recs.filter((x) => x.op === 'write');
    expect(writes).toEqual([
      expect.objectContaining({ stage: 'endpoint', key: 'default/exec-intercept', verb: 'create', mode: 'intercept', code: 201, client: 'kubectl', resource: 'configmaps' }),
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
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/exec-overlay\s+\d+\s+client=kubectl verb=patch resource=configmaps mode=overlay code=200/);
    expect(r.stdout).toMatch(/metadata\.annotations: <none> → \{"seen":"yes"\}/);
    expect(r.stdout).toMatch(/endpoint\s+watch\s+default\s+\d+\s+client=kubectl resource=configmaps event=start/);
    expect(r.stderr).toMatch(/^fork: 1 object differs from the target \(written locally\):\n {2}created configmaps default\/exec-overlay$/m);
    expect(r.stderr).toMatch(/^converged: 1 key written, no write pending$/m);
    expect(r.code).toBe(0);
    expect((await k.kubectl('get', 'configmap', 'exec-overlay')).code).not.toBe(0);
  });

  it('overlay: kubectl rollout status (client-go\'s watch-until-condition) sees the status a controller writes in the fork', async () => {
    // The fork runs no deployment controller: the script plays it, writing the rolled-out status through /status.
    const status = JSON.stringify({ status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } });
    const r = await exec('-n', 'default', '--writes', 'overlay', ...sh(
      `kubectl create deployment exec-roll --image=nginx --replicas=2 && { (sleep 1; kubectl patch deployment exec-roll --subresource=status --type=merge -p '${status}') & kubectl rollout status deployment/exec-roll --timeout=20s; wait; }`,
    ));
    expect(r.stderr).toMatch(/^sh \| deployment "exec-roll" successfully rolled out$/m);
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/exec-roll\s+\d+\s+client=kubectl verb=patch resource=deployments\.apps mode=overlay code=200 subresource=status/);
    expect(r.code).toBe(0);
    expect((await k.kubectl('get', 'deployment', 'exec-roll')).code).not.toBe(0);
  });

  it('server-dry-run: the target\'s refusal (422) reaches the controller and the trace', async () => {
    const r = await exec('-n', 'default', '--writes', 'server-dry-run', '-o', 'ndjson', ...sh('kubectl create configmap Not_Valid --from-literal=a=b; exit 0'));
    const w = records(r.stdout).find((x) => x.op === 'write');
    expect(w).toMatchObject({ verb: 'create', mode: 'server-dry-run', code: 422, error: expect.stringMatching(/Invalid value: "Not_Valid"/) });
    expect(r.stderr).toMatch(/^sh \| error: failed to create configmap: ConfigMap "Not_Valid" is invalid: metadata\.name: Invalid value/m);
  });

  it('an injected 410 on the watch makes the client list again: a relist record names why', async () => {
    // kubectl get -w ends on a 410 (it does not relist by itself): the script watches again, as a controller would.
    const r = await exec('-n', 'default', '--inject', 'expire@1s', '-o', 'ndjson', ...sh('timeout 5 kubectl get configmaps -w; timeout 2 kubectl get configmaps -w; exit 0'));
    const recs = records(r.stdout);
    expect(recs).toContainEqual(expect.objectContaining({ op: 'fault', fault: 'expire@1000ms', client: 'kubectl' }));
    expect(recs).toContainEqual(expect.objectContaining({ op: 'watch', type: 'ERROR', code: 410 }));
    expect(recs).toContainEqual(expect.objectContaining({ op: 'watch', event: 'close', reason: '410' }));
    expect(recs).toContainEqual(expect.objectContaining({ op: 'relist', resource: 'configmaps', reason: expect.stringMatching(/^it was sent 410 Gone/) }));
  });

  it('write faults: the Nth write is answered 409 Conflict; a failing controller fails the run with its own exit code', async () => {
    const r = await exec('-n', 'default', '--inject', 'conflict@1', ...sh('kubectl create configmap exec-conflict --from-literal=a=b'));
    expect(r.stdout).toMatch(/endpoint\s+fault\s+.*fault=conflict@1/);
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/exec-conflict\s+client=kubectl verb=create resource=configmaps mode=intercept code=409/);
    expect(r.stderr).toMatch(/^sh \| error: failed to create configmap: Operation cannot be fulfilled on configmaps "exec-conflict": .*\(injected by kwatch: conflict@1\)$/m);
    expect(r.stderr).toMatch(/^the controller exited with code 1; its last lines:$/m);
    expect(r.code).toBe(1);
  });

  it('a stale write (an update from an older resourceVersion than the client was sent) is named before its 409', async () => {
    const r = await exec('-n', 'default', '--writes', 'overlay', '-o', 'ndjson', ...sh(
      'kubectl create configmap exec-stale --from-literal=a=b && kubectl get configmap exec-stale -o json > "$TMPDIR_STALE" && kubectl annotate configmap exec-stale x=1 && kubectl get configmap exec-stale -o name && kubectl replace -f "$TMPDIR_STALE"; exit 0'.replaceAll('$TMPDIR_STALE', `${k.dir}/stale.json`),
    ));
    const recs = records(r.stdout);
    const stale = recs.find((x) => x.op === 'stale-write');
    expect(stale).toMatchObject({ key: 'default/exec-stale', client: 'kubectl', note: expect.stringMatching(/a 409 Conflict follows$/) });
    expect(recs).toContainEqual(expect.objectContaining({ op: 'write', verb: 'update', key: 'default/exec-stale', code: 409 }));
  });

  it('a controller that rewrites its key after every echo of its own write is reported as a loop (exit 1)', async () => {
    // Each event for the ConfigMap (its own write's echo included) makes the script write a new value.
    const script = 'kubectl create configmap exec-loop --from-literal=n=0 && kubectl get configmap exec-loop -w -o name --output-watch-events | while read -r line; do kubectl annotate --overwrite configmap exec-loop tick=$(date +%s%N) >/dev/null; done';
    const r = await exec('-n', 'default', '--writes', 'overlay', '--once', '--quiet', '3s', '--max-wait', '25s', '--loop-threshold', '3', '-o', 'ndjson', ...sh(script));
    // --once stops at the loop: there is nothing left to wait for.
    expect(r.stderr).toMatch(/^not converged: 1 looping, 1 key written$/m);
    const loop = records(r.stdout).find((x) => x.op === 'loop');
    expect(loop).toMatchObject({ key: 'default/exec-loop', client: 'kubectl', fields: ['metadata.annotations.tick'] });
    expect(r.stderr).toMatch(/^loop: kubectl configmaps default\/exec-loop rewrote itself \d+ times in a row after the echo of its own write; changing every round: metadata\.annotations\.tick$/m);
    expect(r.code, r.stderr).toBe(1);
  });

  it('bad input: a command that does not exist exits 127 in one line; no command after -- is a usage error', async () => {
    const missing = await exec('--', 'no-such-controller-binary');
    expect(missing.stderr).toMatch(/^error: no-such-controller-binary: command not found$/m);
    expect(missing.code).toBe(127);
    const none = await exec();
    expect(none.stderr).toMatch(/^error: --exec needs the controller's command after --/m);
    expect(none.code).toBe(1);
  });
});

describe('the endpoint refuses other local processes', () => {
  it('without the secret path or token of the kubeconfig it wrote, a request is 401; {kubeconfig} in ARGS is that file', async () => {
    const script = `url=$(sed -n 's/^ *server: //p' "$1"); base=\${url%/kwatch-*}; curl -s -o /dev/null -w "bare=%{http_code}\\n" "$base/api/v1/namespaces"; curl -s -o /dev/null -w "secret=%{http_code}\\n" "$url/api/v1/namespaces"`;
    const r = await exec('--', 'sh', '-c', script, 'controller', '{kubeconfig}');
    expect(r.stderr).toMatch(/^sh \| bare=401$/m);
    expect(r.stderr).toMatch(/^sh \| secret=200$/m);
  });
});

describe('kwatch proxy', () => {
  it('serves a controller started elsewhere through --kubeconfig-out until stopped, and never replaces a file it did not write', async () => {
    const own = k.file('user-kubeconfig', 'apiVersion: v1\nkind: Config\n');
    const refused = await kwatch(['proxy', '--kubeconfig-out', own, '--for', '1s'], env());
    expect(refused.stderr).toMatch(/^error: --kubeconfig-out .* exists and is not a kubeconfig kwatch wrote: choose another path, or add --force to replace it$/m);
    expect(refused.code).toBe(1);

    const out = `${k.dir}/proxy.kubeconfig`;
    const proxy = new Running(['proxy', '--kubeconfig-out', out, '-o', 'ndjson'], env());
    const got = await pollKubectl(out, ['get', 'namespaces', '-o', 'name']);
    expect(got).toMatch(/namespace\/default/);
    await proxy.waitFor((x) => x.op === 'list' && x.resource === 'namespaces', 'the proxy\'s list record');
    expect((await proxy.stop('SIGINT')).code).toBe(0);
    expect(proxy.records).toContainEqual(expect.objectContaining({ op: 'list', resource: 'namespaces', client: 'kubectl' }));
    // Its own file it may replace.
    const again = await kwatch(['proxy', '--kubeconfig-out', out, '--for', '1s'], env());
    expect(again.code).toBe(0);
  }, 30_000);
});

describe('kwatch sim --mirror', () => {
  it('serves a copy-on-write fork of a cluster: reads mirrored, writes local only, and at exit the objects that diverged', async () => {
    const out = `${k.dir}/mirror.kubeconfig`;
    const mirror = new Running(['sim', '--mirror', '--kubeconfig', k.kubeconfig, '--kubeconfig-out', out, '--mirror-resources', 'configmaps,namespaces'], env());
    try {
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
