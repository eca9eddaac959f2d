// Edges of the triggers and the scheduler a mutation check found untested: controller owners only under
// `owns`, every owner with ownsAllOwners, both owners when an object changes hands, `held` only for a
// key that is running.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/informer/types.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import { DEPLOYMENTS, MemoryCatalog, REPLICASETS, deployment, eventually, startSession } from './helpers.js';

const ownedBy = (d: KubeObject, controller: boolean | undefined) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata.name!, uid: d.metadata.uid!, ...(controller === undefined ? {} : { controller }) });

async function ownerRuns(allOwners: boolean): Promise<string[]> {
  const catalog = new MemoryCatalog([DEPLOYMENTS, REPLICASETS]);
  const a = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'a'));
  const b = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'b'));
  const z = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'z'));
  const rs = catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'rs', ownerReferences: [ownedBy(a, undefined), ownedBy(b, false)] } });
  const sentinel = catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'rs-z', ownerReferences: [ownedBy(z, true)] } });
  const seen: string[] = [];
  const definition: ControllerDefinition = { for: 'deployments.apps', owns: ['replicasets.apps'], ownsAllOwners: allOwners, reconcile: (req) => void seen.push(req.name) };
  const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition }] });
  await eventually(() => seen.length >= 3 && h.session.isIdle(), 'the initial runs');
  seen.length = 0;
  catalog.lw(REPLICASETS).apply({ ...rs, metadata: { ...rs.metadata, labels: { touched: 'yes' } } });
  // The same informer delivers in order: once z runs for its ReplicaSet, the first update was handled.
  catalog.lw(REPLICASETS).apply({ ...sentinel, metadata: { ...sentinel.metadata, labels: { touched: 'yes' } } });
  await eventually(() => seen.includes('z') && h.session.isIdle(), 'the updates to be handled');
  await h.stop();
  return seen.filter((n) => n !== 'z').sort();
}

describe('owns', () => {
  it('an owner reference without controller: true enqueues nothing; with ownsAllOwners every owner runs', async () => {
    expect(await ownerRuns(false)).toEqual([]);
    expect(await ownerRuns(true)).toEqual(['a', 'b']);
  });

  it('an update that moves an owned object to another owner enqueues both the old and the new owner', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, REPLICASETS]);
    const a = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'a'));
    const b = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'b'));
    const rs = catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'rs', ownerReferences: [ownedBy(a, true)] } });
    const seen: string[] = [];
    const definition: ControllerDefinition = { for: 'deployments.apps', owns: ['replicasets.apps'], reconcile: (req) => void seen.push(`${req.name}:${req.reasons.map((r) => r.reason).join('+')}`) };
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition }] });
    await eventually(() => seen.length >= 2 && h.session.isIdle(), 'the initial runs');
    seen.length = 0;
    catalog.lw(REPLICASETS).apply({ ...rs, metadata: { ...rs.metadata, ownerReferences: [ownedBy(b, true)] } });
    await eventually(() => seen.length >= 2 && h.session.isIdle(), 'both owners to run');
    expect(seen.sort()).toEqual(['a:related object updated', 'b:related object updated']);
    await h.stop();
  });
});

describe('held', () => {
  it('is traced only for a trigger that arrives while its key is running', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const web = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const other = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'other'));
    let release: (() => void) | undefined;
    let runs = 0;
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      reconcile: (req) => {
        runs++;
        if (req.name === 'web' && runs > 2 && !release) return new Promise<void>((r) => (release = r));
      },
    };
    const h = await startSession({ catalog, mode: 'intercept', concurrency: 2, controllers: [{ name: 'c', definition }] });
    await eventually(() => runs === 2 && h.session.isIdle(), 'the initial runs');
    // Neither key runs: an update is queued, not held.
    catalog.lw(DEPLOYMENTS).apply({ ...web, spec: { replicas: 2 } });
    await eventually(() => release !== undefined, 'web to run (and hang)');
    expect(h.records.filter((r) => r.op === 'held')).toEqual([]);
    // web is running: its trigger is held; other is not running: its trigger is not.
    catalog.lw(DEPLOYMENTS).apply({ ...other, spec: { replicas: 3 } });
    catalog.lw(DEPLOYMENTS).apply({ ...web, spec: { replicas: 4 } });
    await eventually(() => h.session.factory.isIdle() && runs === 4, 'both updates to be handled');
    expect(h.records.filter((r) => r.op === 'held').map((r) => r.key)).toEqual(['default/web']);
    release!();
    await eventually(() => h.session.isIdle(), 'the held run');
    await h.stop();
  });
});
