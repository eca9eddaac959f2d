// End to end through the built CLI (run `npm run build` first): -v 6..9 is kubectl's request log on stderr, in
// kubectl 1.32's klog format, with credentials masked and Secret values never shown; stdout is unchanged by it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const SECRET_VALUE = 'hunter2-very-secret-value';
/** Under a key that is no credential's name: only knowing the object is a Secret masks it. */
const PLAIN_KEY_VALUE = 'VISIBLE-UNDER-A-PLAIN-KEY';
const PATCHED_VALUE = 'PATCHED-IN-BY-THE-RECONCILER';
const dir = tempDir('kwatch-e2e-reqlog-');
let sim: SimServer;
let env: Record<string, string>;
let token: string;
const DEV = ['--context', 'kwatch-sim-dev'];
/** klog's prefix as kubectl prints it: I1126 08:30:22.169123   12345 round_trippers.go:560] */
const KLOG = String.raw`I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ `;

beforeAll(async () => {
  sim = await startSimServer({ tls: true, users: true, nodes: 1 });
  sim.api.create(PODS, { metadata: { name: 'web', namespace: 'dev' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } });
  sim.api.create(SECRETS, { metadata: { name: 'db', namespace: 'default' }, stringData: { password: SECRET_VALUE } });
  sim.api.create(SECRETS, { metadata: { name: 'app', namespace: 'default' }, stringData: { foo: PLAIN_KEY_VALUE } });
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
  const { readFileSync } = await import('node:fs');
  token = /token: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))![1];
});
afterAll(async () => {
  await sim?.close();
});

/**
 * `list secrets -n default -v V`, run once per V however many tests read it: -v 8's headers-and-bodies test and the
 * masking tests below check the same run (a CLI run is ~0.3 s of CPU).
 */
const listSecretsRuns = new Map<string, ReturnType<typeof kwatch>>();
function listSecrets(v: string): ReturnType<typeof kwatch> {
  let run = listSecretsRuns.get(v);
  if (!run) listSecretsRuns.set(v, (run = kwatch(['list', 'secrets', '-n', 'default', '-v', v], env)));
  return run;
}

describe('-v N request log', () => {
  it('-v 6 prints one kubectl line per request on stderr, and stdout is what -v 0 prints', async () => {
    const [quiet, v6] = await Promise.all([kwatch(['list', 'pods', ...DEV], env), kwatch(['list', 'pods', ...DEV, '-v', '6'], env)]);
    expect(v6.code, v6.stderr).toBe(0);
    // A page's latency reads 0.4ms, 180ms or 1.2s (a slow machine): any of them is N.
    const timeless = (out: string) => out.replace(/\b\d+(?:\.\d+)?m?s\b/g, 'N').replace(/ +/g, ' ').replace(/─+/g, '─');
    expect(timeless(v6.stdout)).toBe(timeless(quiet.stdout));
    expect(quiet.stderr).not.toMatch(/round_trippers/);
    expect(v6.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:560\\] GET https://127\\.0\\.0\\.1:\\d+/api/v1/namespaces/dev/pods\\?limit=500 200 OK in \\d+ milliseconds$`, 'm'));
    expect(v6.stderr).not.toMatch(/Request Headers/);
  });

  it('-v 7 adds the request line and headers with Authorization masked, and "Response Status"', async () => {
    const res = await kwatch(['list', 'pods', ...DEV, '-v', '7'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:470\\] GET https://\\S+/api/v1/namespaces/dev/pods\\?limit=500$`, 'm'));
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:476\\] Request Headers:$`, 'm'));
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:480\\]     Authorization: Bearer <masked>$`, 'm'));
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:581\\] Response Status: 200 OK in \\d+ milliseconds$`, 'm'));
    expect(res.stderr).not.toMatch(/Response Headers/);
    expect(res.stderr).not.toContain(token);
  });

  it('-v 8 adds response headers and bodies, with Secret values masked', async () => {
    const res = await listSecrets('8');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:584\\] Response Headers:$`, 'm'));
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:587\\]     Content-Type: application/json$`, 'm'));
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}helper\\.go:113\\] "Response Body" body="\\{.*SecretList.*<masked \\d+ bytes>`, 'm'));
    expect(res.stderr).not.toContain(SECRET_VALUE);
    expect(res.stderr).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'));
  });

  it('-v 8 shows the first 1 KB of a body, as kubectl cuts it', async () => {
    const res = await kwatch(['list', 'nodes', '-v', '8'], env);
    expect(res.code, res.stderr).toBe(0);
    const body = /"Response Body" body=(".*")$/m.exec(res.stderr.split('\n').filter((l) => l.includes('/api/v1/nodes') || l.includes('Response Body')).join('\n'));
    expect(body).not.toBeNull();
    const text = JSON.parse(body![1]) as string;
    expect(text).toMatch(/^\{"kind":"NodeList".{1000,} \[truncated \d+ chars\]$/s);
    expect(text.length).toBeLessThan(1024 + 40);
  });

  it('-v 9 prints a curl line, and never the token', async () => {
    const res = await kwatch(['list', 'pods', ...DEV, '-v', '9'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`^${KLOG}round_trippers\\.go:473\\] curl -v -XGET  (-H "[^"]+" )*-H "Authorization: Bearer <masked>".* 'https://\\S+/api/v1/namespaces/dev/pods\\?limit=500'$`, 'm'));
    expect(res.stderr).toMatch(/round_trippers\.go:560\] GET \S+ 200 OK in \d+ milliseconds/);
    expect(res.stderr + res.stdout).not.toContain(token);
  });

  it('logs a watch opening and closing', async () => {
    const res = await kwatch(['events', 'pods', ...DEV, '--for', '1s', '-v', '6'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/round_trippers\.go:560\] GET \S+\?watch=true\S* 200 OK in \d+ milliseconds/);
    expect(res.stderr).toMatch(/watch\.go:\d+\] "Watch closed" url="\S+watch=true\S*" after="\d+\.\ds" bytes=\d+$/m);
  });
});

describe('-v 8 and -v 9 never show a Secret value, whatever its key', () => {
  const leaks = (text: string, value: string) => text.includes(value) || text.includes(Buffer.from(value).toString('base64'));
  for (const v of ['8', '9']) {
    it(`list, events and index secrets -v ${v}: list items (which carry no kind) are masked as Secrets`, { timeout: 120_000 }, async () => {
      const runs = await Promise.all([
        listSecrets(v),
        // --until-synced, not --for: a loaded machine may not have listed within a fixed time.
        // --no-watch-list (events, index): a watch-list sync has no list body (watch streams are not body-logged, as in kubectl).
        kwatch(['events', 'secrets', '-n', 'default', '--until-synced', '--no-watch-list', '-v', v], env),
        kwatch(['index', 'secrets', '-n', 'default', '--by', '{.type}', '--no-watch-list', '-v', v], env),
      ]);
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/"Response Body" body="\{.*SecretList.*\\"foo\\":\\"<masked 25 bytes>\\"/);
        expect(leaks(r.stderr + r.stdout, PLAIN_KEY_VALUE)).toBe(false);
        expect(leaks(r.stderr + r.stdout, SECRET_VALUE)).toBe(false);
      }
    });
  }

  it('reconcile --writes server-dry-run -v 8: a merge patch setting stringData is logged masked, request and answer', { timeout: 120_000 }, async () => {
    const mod = join(dir, 'patch-secret.mjs');
    writeFileSync(mod, `export default { for: 'secrets', async reconcile(req, ctx) {
      const s = await ctx.get('secrets', req);
      if (s?.metadata.name === 'app') await ctx.patch(s, { stringData: { foo: '${PATCHED_VALUE}' } });
    } };`);
    const r = await kwatch(['reconcile', 'secrets', '--with', mod, '-n', 'default', '--once', '--writes', 'server-dry-run', '-v', '8'], env);
    // Exit 1: a dry-run write is never applied, so the key "would still write" (not converged).
    expect(r.stderr).toMatch(/^not converged: 1 of 2 keys would still write/m);
    expect(r.stderr).toMatch(/"Request Body" body="\{\\"stringData\\":\{\\"foo\\":\\"<masked 28 bytes>\\"\}\}"/);
    expect(r.stderr).toMatch(/PATCH https:\S+\/secrets\/app\?/);
    expect(leaks(r.stderr + r.stdout, PATCHED_VALUE)).toBe(false);
    expect(leaks(r.stderr + r.stdout, PLAIN_KEY_VALUE)).toBe(false);
  });
});
