// The --once verdict of `reconcile --exec` as a CI gate: a run that never settled — stopped at --max-wait, interrupted
// (a CI job's timeout sends SIGTERM) — or a controller that never reached the endpoint at all cannot read as a pass.
import { describe, expect, it } from 'vitest';
import { KUBECTL, Running, kwatch } from './events-helpers.js';

const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';
/** A controller that lists once (a request, no watch: it never syncs) and then hangs. */
const listsThenHangs = ['--', 'sh', '-c', `${KUBECTL} get configmaps -o name && sleep 120`];

describe('the --once verdict of a run that did not settle', { timeout: 60_000 }, () => {
  it('a controller that sends no request (another kubeconfig, or none) is idle, exit 4, not converged', async () => {
    const r = await kwatch(['reconcile', '--exec', '--sim', '--once', '--quiet', '1s', '--', 'true'], {});
    expect(r.stderr).toMatch(/^stopped: the controller exited$/m);
    expect(lastLine(r.stderr)).toBe('idle: no request reached the endpoint — the controller may not use the kubeconfig kwatch gave it (KUBECONFIG), and may talk to a cluster another way');
    expect(r.code).toBe(4);
  });

  it('one that lists, writes nothing and hangs until --max-wait, never having watched, is idle: exit 4', async () => {
    // --max-wait is a generous bound for kubectl's one list; the verdict does not depend on when it comes.
    const r = await kwatch(['reconcile', '--exec', '--sim', '-n', 'default', '--once', '--quiet', '1s', '--max-wait', '15s', ...listsThenHangs], {});
    expect(r.stderr).toMatch(/^sh \| configmap\/kube-root-ca\.crt$/m);
    expect(r.stderr).toMatch(/^stopped: --max-wait 15 s reached and the controller never opened a watch/m);
    expect(lastLine(r.stderr)).toBe('idle: the controller never opened a watch and wrote nothing before --max-wait — it may not have started its work (--expect judges the end state it leaves)');
    expect(r.code).toBe(4);
  });

  it('one interrupted by SIGTERM before it settled did not settle: exit 1', async () => {
    const run = new Running(['reconcile', '--exec', '--sim', '-n', 'default', '--once', '--quiet', '1s', ...listsThenHangs], {});
    await run.until(() => /^sh \| configmap\/kube-root-ca\.crt$/m.test(run.stderr), 'the controller\'s list', 30_000);
    const { code } = await run.stop('SIGTERM');
    expect(run.stderr).toMatch(/^stopped: interrupted before it settled$/m);
    expect(lastLine(run.stderr)).toBe('did not settle: interrupted before the controller had synced and been quiet; 0 keys written, none pending');
    expect(code).toBe(1);
  });
});
