// --expect: the end state of a --once run checked against partial objects, exit 3 on a mismatch.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { kwatch, type Rec } from './events-helpers.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'reconcilers');
const k = kubectlSim({ seed: 11, nodes: 1, pods: 6, churn: 0 }, 'kwatch-e2e-expect-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
const annotator = ['reconcile', '--with', join(EXAMPLES, 'annotator.mjs'), '-n', 'default', '--once', '--writes', 'overlay'];

describe('kwatch reconcile --expect', { timeout: 60_000 }, () => {
  it('met expectations (an annotation the run writes, a ConfigMap that must not exist) exit 0', async () => {
    const file = k.file(
      'met.yaml',
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: tokens-api
  namespace: default
  annotations:
    example.com/owner-team: team-default
---
apiVersion: v1
kind: ConfigMap
metadata: { name: never-created, namespace: default }
absent: true
`,
    );
    const r = await kwatch([...annotator, '--expect', file], env());
    expect(r.stderr).toMatch(/^expectations: 2 of 2 met$/m);
    expect(r.code).toBe(0);
  });

  it('a mismatch exits 3 with a diff per expectation not met, and an expect record each in ndjson', async () => {
    const file = k.file(
      'unmet.json',
      JSON.stringify([
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tokens-api', namespace: 'default', annotations: { 'example.com/owner-team': 'team-other' } }, spec: { replicas: 99 } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tokens-api-config', namespace: 'default' }, absent: true },
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tokens-api', namespace: 'default' } },
      ]),
    );
    const r = await kwatch([...annotator, '--expect', file, '-o', 'ndjson'], env());
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      [
        `expectation not met: deployments.apps default/tokens-api (${file} document 1)`,
        '  metadata.annotations.example.com/owner-team: want "team-other", got "team-default"',
        '  spec.replicas: want 99, got 4',
        `expectation not met: configmaps default/tokens-api-config (absent) (${file} document 2)`,
      ].join('\n'),
    );
    expect(r.stderr).toMatch(/^expectations: 2 of 3 not met$/m);
    const recs = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec).filter((x) => x.op === 'expect');
    expect(recs.map((x) => [x.resource, x.key, x.met])).toEqual([
      ['deployments.apps', 'default/tokens-api', false],
      ['configmaps', 'default/tokens-api-config', false],
      ['deployments.apps', 'default/tokens-api', true],
    ]);
  });

  it('the image-snapshot example (predicates, a finalizer, owns) meets its --expect file under overlay', async () => {
    const r = await kwatch(['reconcile', '--with', join(EXAMPLES, 'image-snapshot.mjs'), '-n', 'default', '--once', '--writes', 'overlay', '--expect', join(EXAMPLES, 'image-snapshot.expect.yaml'), '-o', 'ndjson'], env());
    expect(r.stderr, r.stderr).toMatch(/^converged: 1 key, \d+ runs, no write pending$/m);
    expect(r.stderr, r.stderr).toMatch(/^expectations: 3 of 3 met$/m);
    expect(r.code, r.stderr).toBe(0);
    const recs = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);
    // Its own finalizer patch changes no generation: GenerationChanged drops the event it caused.
    expect(recs.find((x) => x.op === 'filtered')).toMatchObject({ resource: 'deployments.apps', key: 'default/tokens-api', predicate: 'GenerationChangedPredicate' });
    for (const d of JSON.parse((await k.kubectl('get', 'deployments.apps', '-n', 'default', '-o', 'json')).stdout).items) expect(d.metadata.finalizers).toBeUndefined();
  });

  it('bad input is one line, exit 1: without --once, under intercept, a document that names no object', async () => {
    const file = k.file('bad.yaml', 'kind: Deployment\nspec: {}\n');
    const cases: [string[], RegExp][] = [
      [['--with', join(EXAMPLES, 'annotator.mjs'), '--writes', 'overlay', '--expect', file], /^error: --expect checks the end state of a --once run: add --once$/],
      [['--with', join(EXAMPLES, 'annotator.mjs'), '--once', '--expect', file], /^error: --expect checks the end state, which --writes intercept never changes/],
      [['--with', join(EXAMPLES, 'annotator.mjs'), '--once', '--writes', 'overlay', '--expect', file], /^error: \S+bad\.yaml document 1: needs apiVersion, kind and metadata\.name/],
    ];
    for (const [args, msg] of cases) {
      const r = await kwatch(['reconcile', ...args], env());
      expect(r.stderr.trim()).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.code).toBe(1);
    }
  });
});
