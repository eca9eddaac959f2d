// End to end through the built CLI (run `npm run build` first): --kube-version and --feature-gates reach the
// embedded server that --sim starts on the other commands, as they reach `kwatch sim`'s.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const env = () => {
  const dir = tempDir('kwatch-e2e-sim-version-');
  return { KUBECONFIG: join(dir, 'none'), KUBECACHEDIR: join(dir, 'cache') };
};

const reflectorOps = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as { stage: string; op: string }).filter((r) => r.stage === 'reflector').map((r) => r.op);

describe('--sim --kube-version / --feature-gates on the other commands (built CLI)', () => {
  it('api-resources serves the release\'s kinds: ServiceCIDR from 1.33, not in 1.32', { timeout: 60_000 }, async () => {
    const old = await kwatch(['api-resources', '--sim', '--kube-version', '1.32', '-o', 'name'], env());
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).not.toContain('servicecidrs');
    const newer = await kwatch(['api-resources', '--sim', '--kube-version', '1.33', '-o', 'name'], env());
    expect(newer.code, newer.stderr).toBe(0);
    expect(newer.stdout).toContain('servicecidrs.networking.k8s.io');
  });

  it('events --watch-list falls back on 1.33 (WatchList off by default), streams once --feature-gates turns it on', { timeout: 60_000 }, async () => {
    const args = ['events', 'pods', '-A', '--sim', '--sim-churn', '0', '--watch-list', '--until-synced', '-o', 'ndjson', '--kube-version', '1.33'];
    const off = await kwatch(args, env());
    expect(off.code, off.stderr).toBe(0);
    expect(reflectorOps(off.stdout)).toContain('fallback');
    const on = await kwatch([...args, '--feature-gates', 'WatchList=true'], env());
    expect(on.code, on.stderr).toBe(0);
    expect(reflectorOps(on.stdout)).not.toContain('fallback');
    expect(reflectorOps(on.stdout)).toContain('synced');
  });

  it('refuses them without --sim, and a bad gate, in one line', { timeout: 60_000 }, async () => {
    const noSim = await kwatch(['list', 'pods', '--kube-version', '1.33'], env());
    expect(noSim.code).toBe(1);
    expect(noSim.stderr.trim()).toBe('error: --kube-version sets what the embedded server serves: add --sim');
    const badGate = await kwatch(['list', 'pods', '--sim', '--feature-gates', 'Nope=true'], env());
    expect(badGate.code).toBe(1);
    expect(badGate.stderr.trim()).toMatch(/^error: invalid --feature-gates: unrecognized feature gate: Nope/);
    expect(badGate.stderr.trim().split('\n')).toHaveLength(1);
  });
});
