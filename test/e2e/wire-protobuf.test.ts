// End to end through the built CLI (run `npm run build` first): `--wire protobuf` makes kwatch's own lists and
// watches ask as client-go's protobuf clients do; the sim answers protobuf for the kinds it has schemas for (pods,
// nodes) and JSON for the rest (apiservices), and kwatch reads both.
import { describe, expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { expectRawRefused, syncedEvents, wireEnv } from './wire-helpers.js';

const env = () => wireEnv('kwatch-e2e-wire-protobuf-');

describe('--wire protobuf (built CLI)', () => {
  it('events: the watch-list (the default) and a LIST (--no-watch-list) come in protobuf and the pipeline syncs, with the same pods as over JSON', { timeout: 60_000 }, async () => {
    const args = ['events', 'pods', '-A', '--sim', '--sim-churn', '0', '--until-synced', '--stages', 'all', '-o', 'ndjson'];
    const pb = await syncedEvents([...args, '--wire', 'protobuf'], env());
    expect(pb.types[0]).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const listed = await syncedEvents([...args, '--wire', 'protobuf', '--no-watch-list'], env());
    expect(listed.types[0]).toBe('application/vnd.kubernetes.protobuf');
    const json = await kwatch(args, env());
    expect(json.code, json.stderr).toBe(0);
    const names = (out: string) => [...new Set(out.trim().split('\n').map((l) => JSON.parse(l) as { stage: string; key?: string | null })
      .filter((r) => r.stage === 'indexer' && r.key).map((r) => r.key))].sort();
    expect(names(pb.stdout).length).toBeGreaterThan(0);
    expect(names(pb.stdout)).toEqual(names(json.stdout));
  });

  it('list -o name reads protobuf pod and node lists; apiservices fall back to JSON; --raw refuses --wire protobuf', { timeout: 60_000 }, async () => {
    const pods = await kwatch(['list', 'pods', '-A', '--sim', '--sim-churn', '0', '--wire', 'protobuf', '-o', 'name'], env());
    expect(pods.code, pods.stderr).toBe(0);
    expect(pods.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(pods.stdout).toMatch(/^pod\//);
    const nodes = await kwatch(['list', 'nodes', '--sim', '--sim-nodes', '2', '--wire', 'protobuf', '-o', 'name'], env());
    expect(nodes.code, nodes.stderr).toBe(0);
    expect(nodes.stdout.trim().split('\n')).toEqual(['node/node-001', 'node/node-002']);
    const apiServices = await kwatch(['list', 'apiservices', '--sim', '--wire', 'protobuf', '-o', 'name'], env());
    expect(apiServices.code, apiServices.stderr).toBe(0);
    expect(apiServices.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['apiservice.apiregistration.k8s.io/v1.', 'apiservice.apiregistration.k8s.io/v1.apps']));
    await expectRawRefused('protobuf', env());
  });
});
