// read-back: annotates a Deployment, then reads it back from the cache at once, as a controller does when it
// checks its own write. When watch events come late (`--inject delay:300ms`) the cache still holds the object
// from before the write: kwatch reports a stale-read, and `--read-your-writes` makes the read wait for the write.
import { defineController } from 'kwatch';

const ANNOTATION = 'example.com/checked';

export default defineController({
  name: 'read-back',
  for: 'deployments.apps',
  async reconcile(req, ctx) {
    const deploy = await ctx.get('deployments.apps', req);
    if (!deploy || deploy.metadata.annotations?.[ANNOTATION]) return;
    await ctx.patch(deploy, { metadata: { annotations: { [ANNOTATION]: 'yes' } } }, { type: 'merge' });
    const after = await ctx.get('deployments.apps', req);
    ctx.log(`read back ${ANNOTATION}=${after?.metadata.annotations?.[ANNOTATION] ?? '<none>'}`);
  },
});
