// A status writer that loops ON PURPOSE, for the loop detector: every run stamps the time into a
// status condition, so every write changes the object, which triggers the next run. Under
// --writes overlay kwatch reports a `loop` naming the field that changes every round
// (status.conditions[type=Stamped].lastUpdateTime). The fix: write only when something other than
// the timestamp changes.
import { defineController } from 'kwatch';

/** Now as a MicroTime (like a Lease's renewTime): microseconds, so no two runs stamp the same value. */
function microTime() {
  const us = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return new Date(Math.floor(us / 1000)).toISOString().replace(/Z$/, `${String(us % 1000).padStart(3, '0')}Z`);
}

export default defineController({
  name: 'status-stamper',
  for: 'deployments.apps',
  async reconcile(req, ctx) {
    const deploy = await ctx.get('deployments.apps', req);
    if (!deploy) return;
    const others = (deploy.status?.conditions ?? []).filter((c) => c.type !== 'Stamped');
    const stamped = { type: 'Stamped', status: 'True', reason: 'Reconciled', lastUpdateTime: microTime() };
    await ctx.updateStatus({ ...deploy, status: { ...deploy.status, conditions: [...others, stamped] } });
  },
});
