// A ConfigMap-hash roller (the `watches` pattern): each Deployment carries, in its pod template, a hash
// of the ConfigMaps it mounts, so editing a ConfigMap rolls the Deployments that use it. A ConfigMap
// change enqueues exactly the Deployments that mount it (the map function), with the reason
// "related object updated (configmaps <ns>/<name>@<rv>)".
import { createHash } from 'node:crypto';
import { defineController } from 'kwatch';

const HASH = 'example.com/config-hash';

/** The ConfigMaps a pod template mounts as volumes or reads with envFrom. */
function configMapsOf(deploy) {
  const spec = deploy.spec?.template?.spec ?? {};
  const names = new Set();
  for (const v of spec.volumes ?? []) if (v.configMap?.name) names.add(v.configMap.name);
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const e of c.envFrom ?? []) if (e.configMapRef?.name) names.add(e.configMapRef.name);
  }
  return [...names].sort();
}

export default defineController({
  name: 'configmap-roller',
  for: 'deployments.apps',
  watches: [
    {
      resource: 'configmaps',
      map: (cm, cache) =>
        cache
          .list('deployments.apps', { namespace: cm.metadata.namespace })
          .filter((d) => configMapsOf(d).includes(cm.metadata.name))
          .map((d) => ({ namespace: d.metadata.namespace, name: d.metadata.name })),
    },
  ],
  async reconcile(req, ctx) {
    const deploy = await ctx.get('deployments.apps', req);
    if (!deploy) return;
    const hash = createHash('sha256');
    for (const name of configMapsOf(deploy)) {
      const cm = await ctx.get('configmaps', { namespace: req.namespace, name });
      hash.update(`${name}\0${JSON.stringify(cm?.data ?? null)}\0${JSON.stringify(cm?.binaryData ?? null)}\0`);
    }
    const want = hash.digest('hex').slice(0, 16);
    if (deploy.spec.template.metadata?.annotations?.[HASH] === want) return;
    ctx.log(`config hash ${want}`);
    await ctx.patch(deploy, { spec: { template: { metadata: { annotations: { [HASH]: want } } } } });
  },
});
