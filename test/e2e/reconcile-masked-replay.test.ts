// kwatch reconcile --from-recording over a recording that masked Secret data: the reconciler that reads
// a masked value is told so, once per field.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { kwatch, type Rec } from './events-helpers.js';

const k = kubectlSim({ seed: 11, nodes: 1, pods: 2, churn: 0 }, 'kwatch-e2e-masked-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
const records = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);

describe('kwatch reconcile --from-recording: masked values', { timeout: 60_000 }, () => {
  it('warns once per field a reconciler reads that the recording masked, naming it', async () => {
    for (const name of ['creds-a', 'creds-b']) expect((await k.kubectl('create', 'secret', 'generic', name, '-n', 'payments', '--from-literal=password=hunter2')).code).toBe(0);
    const mod = k.file(
      'secret-reader.mjs',
      `export default { name: 'secret-reader', for: 'secrets', async reconcile(req, ctx) {
        const s = await ctx.get('secrets', req);
        if (s?.data?.password) ctx.log('password bytes', Buffer.from(s.data.password, 'base64').length);
        ctx.log('type', s?.type);
      } };`,
    );
    const rec = join(k.dir, 'secrets.ndjson');
    const live = await kwatch(['reconcile', '--with', mod, '-n', 'payments', '--once', '--record', rec], env());
    expect(live.stderr).not.toMatch(/Warning/);
    const replay = await kwatch(['reconcile', '--with', mod, '--from-recording', rec, '--once', '-o', 'ndjson'], env());
    const warnings = replay.stderr.split('\n').filter((l) => l.startsWith('Warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Warning: secret-reader read secrets payments\/creds-[ab] data\.password, which the recording masked: it sees a placeholder, not the value/);
    expect(records(replay.stdout).filter((x) => x.op === 'masked-read')).toEqual([expect.objectContaining({ resource: 'secrets', field: 'data.password', controller: 'secret-reader' })]);
    expect(replay.code).toBe(0);
  });
});
