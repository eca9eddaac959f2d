// What a user of @kubernetes/client-node writes to get a synced pod cache: makeInformer over every namespace,
// start, then exit. argv[2]: kubeconfig file, argv[3]: the pods the cluster holds (fewer synced is a failure: client-node's
// start() can resolve after a list that failed, reporting the error only on its 'error' event). Prints {"ok":true,"items":N},
// or {"ok":false,"reason":…} and the reason on stderr, exiting 1: end-to-end.js judges a run by its exit status.
const k8s = await import('@kubernetes/client-node');
try {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.argv[2]);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
  let error;
  informer.on('error', (err) => (error ??= err));
  await informer.start();
  const items = informer.list().length;
  if (error) throw error;
  const expected = Number(process.argv[3] ?? 0);
  if (items < expected) throw new Error(`synced ${items} of ${expected} pods`);
  process.stdout.write(`${JSON.stringify({ ok: true, items })}\n`);
  process.exit(0);
} catch (err) {
  const reason = String(err?.message ?? err).split('\n')[0];
  process.stdout.write(`${JSON.stringify({ ok: false, reason })}\n`);
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}
