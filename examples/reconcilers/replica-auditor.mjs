// An owner-based controller (the `owns` pattern): a ReplicaSet change enqueues the Deployment that
// controls it, with the reason "related object updated (replicasets.apps <ns>/<name>@<rv>)". The
// Deployment gets an annotation with the ready replicas its ReplicaSets report, and an Event when
// more than one ReplicaSet still runs pods (a rollout in progress).
import { defineController } from 'kwatch';

const READY = 'example.com/ready-replicas';

export default defineController({
  name: 'replica-auditor',
  for: 'deployments.apps',
  owns: ['replicasets.apps'],
  async reconcile(req, ctx) {
    const deploy = await ctx.get('deployments.apps', req);
    if (!deploy) return;
    const owned = (await ctx.list('replicasets.apps', { namespace: req.namespace })).filter((rs) =>
      (rs.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === deploy.metadata.uid),
    );
    const ready = owned.reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0);
    const active = owned.filter((rs) => (rs.status?.replicas ?? 0) > 0).length;
    if (active > 1) await ctx.recordEvent(deploy, 'Normal', 'RolloutInProgress', `${active} ReplicaSets still run pods`);
    if (deploy.metadata.annotations?.[READY] === String(ready)) return;
    await ctx.patch(deploy, { metadata: { annotations: { [READY]: String(ready) } } });
  },
});
