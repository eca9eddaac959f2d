// reconcile --exec reads the controller's own log lines: small controllers written in shell print what
// controller-runtime (zap JSON) and kube-rs (tracing fmt) print around a reconcile, and make their requests with
// kubectl in between. The built CLI turns the lines into reconcile spans and names them on the requests made inside.
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { KUBECTL, kwatch, type Rec } from './events-helpers.js';

const k = kubectlSim({ seed: 5, nodes: 1, pods: 1, churn: 0 }, 'kwatch-e2e-spans-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: `${k.dir}/cache` });
const sh = (script: string) => ['--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)];
const records = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);

const zap = (msg: string, id: string) =>
  JSON.stringify({ level: 'info', ts: 1764345600.1, logger: 'widget', msg, controller: 'configmap', controllerGroup: '', controllerKind: 'ConfigMap', ConfigMap: { name: 'spans-cr', namespace: 'default' }, namespace: 'default', name: 'spans-cr', reconcileID: id });

describe('reconcile --exec: reconcile spans from the controller\'s log lines', () => {
  it('controller-runtime\'s zap lines make an exact span; the write inside it names it; the lines still pass through', async () => {
    const start = zap('Reconciling', '6f1c2a4e-0001');
    const done = zap('Reconcile successful', '6f1c2a4e-0001');
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', '-o', 'ndjson', ...sh(`echo '${start}'; kubectl create configmap spans-cr --from-literal=a=b; echo '${done}'`)], env());
    const recs = records(r.stdout);
    const spanStart = recs.find((x) => x.stage === 'reconcile' && x.op === 'start');
    expect(spanStart).toMatchObject({ key: 'default/spans-cr', controller: 'configmap', from: 'controller-runtime', reconcileID: '6f1c2a4e-0001', logged: true });
    const write = recs.find((x) => x.stage === 'endpoint' && x.op === 'write');
    expect(write).toMatchObject({ key: 'default/spans-cr', verb: 'create', reconcile: spanStart!.id, cause: [spanStart!.id] });
    expect(recs.find((x) => x.stage === 'reconcile' && x.op === 'success')).toMatchObject({ key: 'default/spans-cr', span: 'exact', logged: true, cause: [spanStart!.id], requests: expect.any(Number) });
    // The controller's output is passed on as it was printed.
    expect(r.stderr).toContain(`sh | ${start}\n`);
    expect(r.stderr).toContain(`sh | ${done}\n`);
    expect(r.code).toBe(0);
  });

  it('kube-rs\'s span lines make spans too; without its span events the end is inferred and says so (table view)', async () => {
    const line = (text: string) => `2026-11-28T16:00:00.000000Z  INFO reconciling object{object.ref=ConfigMap.v1./spans-rs.default object.reason=object updated}: widget: ${text}`;
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', ...sh(`echo '${line('creating')}'; kubectl create configmap spans-rs --from-literal=a=b; echo '${line('created')}'`)], env());
    expect(r.stdout).toMatch(/reconcile\s+start\s+default\/spans-rs\s+controller=sh from=kube-rs objectRef=ConfigMap\.v1\.\/spans-rs\.default reason="?object updated"? logged=false/);
    expect(r.stdout).toMatch(/endpoint\s+write\s+default\/spans-rs\s.*reconcile=\d+/);
    expect(r.stdout).toMatch(/reconcile\s+end\s+default\/spans-rs\s.*logged=false span=inferred/);
    expect(r.code).toBe(0);
  });
});
