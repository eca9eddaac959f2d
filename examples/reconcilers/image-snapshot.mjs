// A controller with predicates and a finalizer (the controller-runtime way): each Deployment gets an
// owned ConfigMap `<name>-images` listing the images its pod template runs, and a finalizer, so the
// snapshot is removed before the Deployment goes.
//   - predicates: ['GenerationChanged'] on the Deployment: its status churn (ready replicas, conditions)
//     never runs the controller, only spec changes do (and creates, deletes) — each dropped event is a
//     `filtered` record naming the predicate. A deletion only sets deletionTimestamp, which GenerationChanged
//     filters too: the owned ConfigMap's own events, and the finalizer's removal, carry the deletion through.
//   - owns: the snapshot ConfigMaps, with ResourceVersionChanged (no resync noise).
//   - finalizer: example.com/image-snapshot, removed once the snapshot is gone.
// Try it: kwatch reconcile --with examples/reconcilers/image-snapshot.mjs --sim --writes overlay --once \
//           --expect examples/reconcilers/image-snapshot.expect.yaml
import { defineController } from 'kwatch';

const FINALIZER = 'example.com/image-snapshot';

function imagesOf(deploy) {
  const spec = deploy.spec?.template?.spec ?? {};
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c) => c.image).join('\n');
}

export default defineController({
  name: 'image-snapshot',
  for: 'deployments.apps',
  predicates: ['GenerationChanged'],
  owns: [{ resource: 'configmaps', predicates: ['ResourceVersionChanged'] }],
  async reconcile(req, ctx) {
    const deploy = await ctx.get('deployments.apps', req);
    if (!deploy) return;
    const name = `${req.name}-images`;
    const snapshot = await ctx.get('configmaps', { namespace: req.namespace, name });
    if (deploy.metadata.deletionTimestamp) {
      if (snapshot) await ctx.delete(snapshot);
      await ctx.removeFinalizer(deploy, FINALIZER);
      return;
    }
    const current = await ctx.addFinalizer(deploy, FINALIZER);
    const data = { images: imagesOf(current) };
    if (!snapshot) {
      const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: req.name, uid: deploy.metadata.uid, controller: true, blockOwnerDeletion: true };
      await ctx.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: req.namespace, labels: { 'app.kubernetes.io/managed-by': 'image-snapshot' }, ownerReferences: [owner] }, data });
    } else if (snapshot.data?.images !== data.images) {
      await ctx.patch(snapshot, { data });
    }
  },
});
