// Completion candidates that live in the cluster or the kubeconfig: resource types from the discovery cache
// shared with kubectl (~/.kube/cache/discovery, fetched when missing or stale), namespaces and object names
// from the server. Every question is bounded by a short deadline, as kubectl's own __complete is: a TAB
// must never hang on an unreachable server.
import { readFileSync } from 'node:fs';
import type { Connection } from '../../kube/http/connection.js';
import type { CandidateSources, TargetFlags } from './complete.js';

/** How long one TAB may wait for the server, all requests together. */
export const COMPLETION_DEADLINE_MS = 5_000;

export function clusterSources(deadlineMs = COMPLETION_DEADLINE_MS): CandidateSources {
  return {
    resources: (target) =>
      withConnection(target, deadlineMs, async (conn) => {
        const { DiscoveryClient } = await import('../../kube/discovery/discovery-client.js');
        const { apiResourceRows } = await import('../../kube/discovery/api-resources.js');
        const rows = apiResourceRows(await new DiscoveryClient(conn).discover());
        // As `kubectl api-resources -o name` spells them: pods, deployments.apps, widgets.example.com.
        return [...new Set(rows.filter((r) => r.verbs.includes('list')).map((r) => (r.group ? `${r.name}.${r.group}` : r.name)))].sort();
      }),
    names: (target, type) =>
      withConnection(target, deadlineMs, async (conn) => {
        const { resolveResource } = await import('../../kube/discovery/resolve-resource.js');
        const { resourcePath } = await import('../../kube/lister-watchers/http-lister-watcher.js');
        const res = await resolveResource(conn, type);
        const namespace = target.allNamespaces ? undefined : conn.namespace;
        return listNames(conn, resourcePath({ ...res, namespace }));
      }),
    namespaces: (target) => withConnection(target, deadlineMs, (conn) => listNames(conn, '/api/v1/namespaces')),
    kubeconfigNames: async (target, kind) => {
      const { kubeconfigFiles } = await import('../../kube/http/kubeconfig.js');
      const YAML = (await import('yaml')).default;
      const names = new Set<string>();
      for (const file of kubeconfigFiles(target.kubeconfig)) {
        const doc = YAML.parse(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
        const entries = doc?.[kind];
        if (Array.isArray(entries)) for (const e of entries) if (typeof e?.name === 'string') names.add(e.name);
      }
      return [...names].sort();
    },
  };
}

async function withConnection<T>(target: TargetFlags, defaultDeadlineMs: number, fn: (conn: Connection) => Promise<T>): Promise<T> {
  const { durationMs } = await import('../../informer/duration.js');
  // A --request-timeout typed on the line bounds the TAB too, as in kubectl (0 or nonsense: the default).
  const typed = target.requestTimeout === undefined ? undefined : durationMs(target.requestTimeout);
  const deadlineMs = typed ? typed : defaultDeadlineMs;
  const { connectionFromUrl, loadConnection } = await import('../../kube/http/connection.js');
  const { kubeconfig, context, cluster, user, namespace } = target;
  const sim = target.sim ? await startSim(target) : undefined;
  // The embedded server's port is new every time: its discovery cache is kept in memory, for this TAB only.
  const discoveryStore = sim ? new (await import('../../kube/discovery/discovery-store.js')).MemoryDiscoveryStore() : undefined;
  const conn = sim ? connectionFromUrl(sim.url, { namespace, requestTimeoutMs: deadlineMs, discoveryStore }) : await loadConnection({ kubeconfig, context, cluster, user, namespace, requestTimeoutMs: deadlineMs });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('completion deadline passed')), deadlineMs);
  });
  try {
    return await Promise.race([fn(conn), deadline]);
  } finally {
    clearTimeout(timer);
    void conn.close().catch(() => undefined);
    await sim?.close();
  }
}

/** The embedded server a `--sim` command would start (same workload flags, no churn). */
async function startSim(target: TargetFlags): Promise<{ url: string; close(): Promise<void> }> {
  const { startSimServer } = await import('../../sim/server.js');
  const { isKubeVersion } = await import('../../sim/kube-version.js');
  const num = (v: string | undefined, fallback: number) => (v !== undefined && Number.isFinite(Number(v)) ? Number(v) : fallback);
  const w = target.simWorkload ?? {};
  // The defaults of the global --sim-* flags (flags.ts); --kube-version decides which kinds there are to offer.
  const kubeVersion = w.kubeVersion !== undefined && isKubeVersion(w.kubeVersion) ? w.kubeVersion : undefined;
  const server = await startSimServer({ port: 0, seed: num(w.seed, 1), pods: num(w.pods, 30), nodes: num(w.nodes, 3), churn: 0, kubeVersion });
  return { url: server.url, close: () => server.close() };
}

/** metadata.name of every item of a collection (one page of up to 1000: enough to pick from with TAB). */
async function listNames(conn: Connection, path: string): Promise<string[]> {
  const res = await conn.request({ path, query: { limit: 1000 } });
  const list = (await res.body.json()) as { items?: { metadata?: { name?: string } }[] };
  return [...new Set((list.items ?? []).map((i) => i.metadata?.name).filter((n): n is string => typeof n === 'string'))].sort();
}
