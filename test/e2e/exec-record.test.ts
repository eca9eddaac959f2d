// reconcile --exec --record (built CLI): a write the target refused (409, 422) is recorded with its code and no object,
// named by what the controller sent, and replaying the recording puts no Status into any cache.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KUBECTL, kwatch, type Rec } from './events-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-e2e-exec-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('reconcile --exec --record', () => {
  it('records a refused write\'s code and no object; a replay of it caches no Status', { timeout: 120_000 }, async () => {
    const rec = join(dir, 'refused.ndjson');
    const script = 'kubectl get configmaps -o name; kubectl create configmap kube-root-ca.crt --from-literal=a=b; kubectl create configmap Bad_Name; true';
    const r = await kwatch(['reconcile', '--exec', '--sim', '-n', 'default', '--once', '--quiet', '1s', '--record', rec, '-o', 'ndjson', '--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)], {});
    expect(r.stderr).toMatch(/errors: 2 of 2 keys written refused by the server/);
    const writes = lines(readFileSync(rec, 'utf8')).filter((l) => l.rec === 'write');
    expect(writes).toEqual([
      { rec: 'write', t: expect.any(Number), res: 0, conn: 0, client: expect.stringMatching(/^kubectl\[\d+\]$/), verb: 'create', key: 'default/kube-root-ca.crt', code: 409, mode: 'intercept' },
      { rec: 'write', t: expect.any(Number), res: 0, conn: 0, client: expect.stringMatching(/^kubectl\[\d+\]$/), verb: 'create', key: 'default/Bad_Name', code: 422, mode: 'intercept' },
    ]);

    const replay = await kwatch(['replay', rec, '-o', 'ndjson', '--stages', 'all'], {});
    expect(replay.code, replay.stderr).toBe(0);
    const recs = lines(replay.stdout) as Rec[];
    expect([...new Set(recs.filter((x) => x.stage === 'indexer').map((x) => x.key))].sort()).toEqual(['default/cart-api-config', 'default/kube-root-ca.crt']);
    expect(replay.stdout).not.toMatch(/"kind":"Status"/);
    expect(recs.some((x) => x.key === 'default/Bad_Name' || x.key === 'default/' || x.key === '')).toBe(false);
  });

  it('a recording that cannot be opened stops the run in one line and leaves no temporary kubeconfig folder', async () => {
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const r = await kwatch(['reconcile', '--exec', '--sim', '--record', join(dir, 'missing', 'x.ndjson'), '--', 'true'], { TMPDIR: tmp });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: cannot write the recording to .*: the directory .* does not exist\n$/);
    // The folder for the controller's kubeconfig (kwatch-exec-*) was made before the recording was opened, and stayed.
    expect(readdirSync(tmp)).toEqual([]);
  });
});
