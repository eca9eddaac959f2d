// End to end through the built CLI (run `npm run build` first): a module that writes a key and reads it back at once,
// against --sim with watch events delivered 2 s late (far longer than a write's answer takes), is a stale-read; with
// --read-your-writes the read waits instead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kwatch, type Result } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-stale-read-');
const module = join(dir, 'read-back.mjs');
writeFileSync(
  module,
  `export default {
  for: 'deployments.apps',
  async reconcile(req, ctx) {
    const d = await ctx.get('deployments.apps', req);
    if (d.metadata.annotations?.['example.com/stamped']) return;
    await ctx.patch(d, { metadata: { annotations: { 'example.com/stamped': 'yes' } } });
    const again = await ctx.get('deployments.apps', req);
    ctx.log('read back', again.metadata.resourceVersion);
  },
};
`,
);
const env = { KUBECACHEDIR: join(dir, 'cache'), KUBECONFIG: join(dir, 'none') };
const base = ['reconcile', '--with', module, '-n', 'default', '--sim', '--sim-seed', '3', '--writes', 'apply', '--once', '--inject', 'delay:2s'];
/**
 * The two runs, each on a --sim of its own, start together at the first test's call: each spends most of its time
 * waiting out the late events, so side by side they take about the time of one.
 */
let both: Promise<Result>[] | undefined;
const runs = () => (both ??= [kwatch([...base, '-o', 'ndjson'], env), kwatch([...base, '--read-your-writes', '-o', 'ndjson'], env)]);

describe('stale reads (built CLI, --sim with late watch events)', () => {
  it('reading back a key right after writing it is a stale-read line and record', async () => {
    const res = await runs()[0];
    const records = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const stale = records.filter((r) => r.op === 'stale-read');
    expect(stale.length).toBeGreaterThan(0);
    expect(Number(stale[0].cachedRv)).toBeLessThan(Number(stale[0].writtenRv));
    expect(res.stderr).toMatch(/^stale-read: read-back run \S+ read deployments\.apps \S+ at resourceVersion \d+, older than its own write \(\d+\); --read-your-writes waits for it$/m);
  });

  it('--read-your-writes: the read waits for the write (a read-your-writes record), no stale-read', async () => {
    const res = await runs()[1];
    const records = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const waits = records.filter((r) => r.op === 'read-your-writes');
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((w) => w.caughtUp === true && w.waitedMs > 0)).toBe(true);
    expect(records.some((r) => r.op === 'stale-read')).toBe(false);
    const logs = records.filter((r) => r.op === 'log').map((r) => r.message);
    for (const w of waits) expect(logs).toContain(`read back ${w.writtenRv}`);
    expect(res.stderr).not.toMatch(/^stale-read/m);
  });
});
