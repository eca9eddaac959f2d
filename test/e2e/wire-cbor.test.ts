// End to end through the built CLI (run `npm run build` first): `--wire cbor` makes kwatch's own lists and watches
// ask for CBOR, read as such where the sim serves it (CBORServingAndStorage on), JSON where it does not.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const env = () => {
  const dir = tempDir('kwatch-e2e-wire-cbor-');
  return { KUBECONFIG: join(dir, 'none'), KUBECACHEDIR: join(dir, 'cache') };
};

type Rec = { stage: string; op: string; contentType?: string; url?: string };
const httpTypes = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec)
  .filter((r) => r.stage === 'http' && r.op === 'response' && /\/pods/.test(r.url ?? '')).map((r) => r.contentType ?? 'json');

describe('--wire cbor (built CLI)', () => {
  // The watch's own answer may not arrive before --until-synced stops the run: test/kube/cbor-wire.test.ts covers it.
  it('events: the initial sync comes in CBOR with the gate on, in JSON without it, and the pipeline syncs either way', { timeout: 60_000 }, async () => {
    const args = ['events', 'pods', '-A', '--sim', '--sim-churn', '0', '--until-synced', '--stages', 'all', '-o', 'ndjson', '--wire', 'cbor'];
    const on = await kwatch([...args, '--feature-gates', 'CBORServingAndStorage=true'], env());
    expect(on.code, on.stderr).toBe(0);
    // The default sync is a watch-list: a watch stream, which CBOR frames as a sequence.
    expect(httpTypes(on.stdout)[0]).toBe('application/cbor-seq');
    expect(on.stdout).toContain('"op":"synced"');
    const listed = await kwatch([...args, '--no-watch-list', '--feature-gates', 'CBORServingAndStorage=true'], env());
    expect(listed.code, listed.stderr).toBe(0);
    expect(httpTypes(listed.stdout)[0]).toBe('application/cbor');
    expect(listed.stdout).toContain('"op":"synced"');
    const off = await kwatch(args, env());
    expect(off.code, off.stderr).toBe(0);
    expect(httpTypes(off.stdout)[0]).toBe('application/json'); // the watch-list's stream names its type; a list's JSON does not
    expect(off.stdout).toContain('"op":"synced"');
  });

  it('list -o name reads a CBOR list; --raw refuses --wire cbor in one line', { timeout: 60_000 }, async () => {
    const r = await kwatch(['list', 'nodes', '--sim', '--sim-nodes', '2', '--feature-gates', 'CBORServingAndStorage=true', '--wire', 'cbor', '-o', 'name'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['node/node-001', 'node/node-002']);
    const raw = await kwatch(['events', 'pods', '--sim', '--raw', '--wire', 'cbor'], env());
    expect([raw.code, raw.stderr.trim()]).toEqual([1, 'error: --raw prints the watch stream\'s JSON lines as sent: it cannot be combined with --wire cbor']);
  });
});
