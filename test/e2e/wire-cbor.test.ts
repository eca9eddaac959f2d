// End to end through the built CLI (run `npm run build` first): `--wire cbor` makes kwatch's own lists and watches
// ask for CBOR, read as such where the sim serves it (CBORServingAndStorage on), JSON where it does not.
import { describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { expectRawRefused, syncedEvents, wireEnv } from './wire-helpers.js';

const env = () => wireEnv('kwatch-e2e-wire-cbor-');

describe('--wire cbor (built CLI)', () => {
  // The watch's own answer may not arrive before --until-synced stops the run: test/kube/cbor-wire.test.ts covers it.
  it('events: the initial sync comes in CBOR with the gate on, in JSON without it, and the pipeline syncs either way', { timeout: 60_000 }, async () => {
    const args = ['events', 'pods', '-A', '--sim', '--sim-churn', '0', '--until-synced', '--stages', 'all', '-o', 'ndjson', '--wire', 'cbor'];
    const on = await syncedEvents([...args, '--feature-gates', 'CBORServingAndStorage=true'], env());
    // The default sync is a watch-list: a watch stream, which CBOR frames as a sequence.
    expect(on.types[0]).toBe('application/cbor-seq');
    const listed = await syncedEvents([...args, '--no-watch-list', '--feature-gates', 'CBORServingAndStorage=true'], env());
    expect(listed.types[0]).toBe('application/cbor');
    const off = await syncedEvents(args, env());
    expect(off.types[0]).toBe('application/json'); // the watch-list's stream names its type; a list's JSON does not
  });

  it('list -o name reads a CBOR list; --raw refuses --wire cbor in one line', { timeout: 60_000 }, async () => {
    const r = await kwatch(['list', 'nodes', '--sim', '--sim-nodes', '2', '--feature-gates', 'CBORServingAndStorage=true', '--wire', 'cbor', '-o', 'name'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['node/node-001', 'node/node-002']);
    await expectRawRefused('cbor', env());
  });
});
