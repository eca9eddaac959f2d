// A Deployment annotator: every Deployment gets the annotation example.com/owner-team, taken from its
// namespace. Under --writes intercept it shows one write per Deployment; under --writes overlay it
// sees its own writes and converges (the second run of each key writes nothing).
import { defineController } from 'kwatch';

const ANNOTATION = 'example.com/owner-team';

export default defineController({
  name: 'annotator',
  for: 'deployments.apps',
  async reconcile(req, ctx) {
    const deploy = await ctx.get('deployments.apps', req);
    if (!deploy) return; // deleted: nothing to do
    const want = `team-${req.namespace}`;
    if (deploy.metadata.annotations?.[ANNOTATION] === want) return;
    ctx.log(`setting ${ANNOTATION}=${want}`);
    await ctx.patch(deploy, { metadata: { annotations: { [ANNOTATION]: want } } }, { type: 'merge' });
  },
});
