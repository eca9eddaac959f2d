// --objects / --sim-objects seeds of built-in kinds follow kube's decoding: a field the kind does not declare is refused
// in one line (kubectl create's default, fieldValidation=Strict) rather than stored where no cluster would hold it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSim } from '../../src/cli/seed-objects.js';
import { UserError } from '../../src/cli/user-error.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer({ pods: 0, nodes: 0, churn: 0 }); });
afterAll(() => sim.close());

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ where: `seeds.yaml document ${name}`, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra } });

describe('seedSim', () => {
  it('creates a built-in object whose fields its kind declares', () => {
    expect(seedSim(sim, [configMap('fine')], '--objects')).toBe(1);
    expect(sim.api.get({ group: '', version: 'v1', resource: 'configmaps' }, 'default', 'fine')).toMatchObject({ data: { k: 'v' } });
  });

  it('refuses a built-in object with an undeclared field in kube\'s strict-decoding words, and stores nothing', () => {
    const run = () => seedSim(sim, [configMap('typo', { dataa: { k: 'v' } })], '--objects');
    expect(run).toThrow(UserError);
    expect(run).toThrow('--objects seeds.yaml document typo: ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dataa"');
    expect(sim.api.get({ group: '', version: 'v1', resource: 'configmaps' }, 'default', 'typo')).toBeUndefined();
  });
});
