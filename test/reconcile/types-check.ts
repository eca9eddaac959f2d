// Compiled by `npm run typecheck` (tsconfig.json includes test/), never run: what a user's
// TypeScript controller gets from kwatch's public types. A line marked @ts-expect-error fails the
// type check if it ever starts compiling.
import { defineController, type KubeObject, type ReconcileContext, type ReconcileRequest, type Reconciler } from '../../src/index.js';

interface Deployment extends KubeObject {
  spec?: { replicas?: number };
}

export const scaler = defineController({
  for: 'deployments.apps',
  owns: ['replicasets.apps'],
  watches: [{ resource: 'configmaps', map: (cm) => [{ namespace: cm.metadata?.namespace, name: 'web' }] }],
  async reconcile(req, ctx) {
    const d = await ctx.get('deployments.apps', req);
    const typed = await ctx.get<Deployment>('deployments.apps', { namespace: req.namespace, name: req.name });
    const replicas: number | undefined = typed?.spec?.replicas;
    ctx.log(req.reasons.map((r) => r.reason), d?.metadata?.name, replicas);
    if (!d) return;
    await ctx.patch(d, { spec: { replicas: 3 } }, { type: 'merge' });
    return { requeueAfter: '30s' };
  },
  errorPolicy(err, req, ctx) {
    ctx.log(String(err), req.name);
    return { requeue: true };
  },
});

export async function reconcile(req: ReconcileRequest, ctx: ReconcileContext): Promise<void> {
  await ctx.recordEvent((await ctx.list('pods', { namespace: req.namespace }))[0], 'Normal', 'Seen', req.name);
}

export const plain: Reconciler = { reconcile };

defineController({
  for: 'deployments.apps',
  // @ts-expect-error a misspelt field is an error, not ignored
  onws: ['replicasets.apps'],
  reconcile() {},
});

defineController({
  for: 'deployments.apps',
  async reconcile(req, ctx) {
    // @ts-expect-error ctx.get needs an ObjectRef, not a bare name
    await ctx.get('deployments.apps', req.name);
  },
});

defineController({
  for: 'deployments.apps',
  // @ts-expect-error a reconcile result is { requeue?, requeueAfter? }, not a number
  async reconcile() {
    return 5;
  },
});

// @ts-expect-error reconcile is required
defineController({ for: 'deployments.apps' });
