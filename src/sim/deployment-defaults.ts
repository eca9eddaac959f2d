// apps/v1 SetDefaults_Deployment, which kube applies to every Deployment it decodes (create and update): one
// replica, a RollingUpdate strategy with 25%/25%, 10 old revisions kept, a 600 s progress deadline.
type Json = Record<string, unknown>;

/** DeploymentSpec's fields in Go struct order, so a defaulted spec serialises as kube's does. */
const SPEC_ORDER = ['replicas', 'selector', 'template', 'strategy', 'minReadySeconds', 'revisionHistoryLimit', 'paused', 'progressDeadlineSeconds'];

function defaultStrategy(strategy: unknown): Json {
  const s: Json = { ...(strategy !== null && typeof strategy === 'object' ? strategy as Json : {}) };
  if (s.type === undefined || s.type === null || s.type === '') s.type = 'RollingUpdate';
  if (s.type !== 'RollingUpdate') return s;
  const rolling: Json = { ...(s.rollingUpdate !== null && typeof s.rollingUpdate === 'object' ? s.rollingUpdate as Json : {}) };
  const maxUnavailable = rolling.maxUnavailable ?? '25%';
  const maxSurge = rolling.maxSurge ?? '25%';
  delete rolling.maxUnavailable;
  delete rolling.maxSurge;
  return { type: s.type, rollingUpdate: { maxUnavailable, maxSurge, ...rolling }, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'type' && k !== 'rollingUpdate')) };
}

/** A new spec with the defaults filled in (the given one is not changed). */
export function defaultDeploymentSpec(spec: unknown): Json {
  const src: Json = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec as Json : {};
  const filled: Json = {
    ...src,
    replicas: src.replicas ?? 1,
    strategy: defaultStrategy(src.strategy),
    revisionHistoryLimit: src.revisionHistoryLimit ?? 10,
    progressDeadlineSeconds: src.progressDeadlineSeconds ?? 600,
  };
  const out: Json = {};
  for (const k of SPEC_ORDER) if (filled[k] !== undefined) out[k] = filled[k];
  for (const k of Object.keys(filled)) if (!(k in out) && filled[k] !== undefined) out[k] = filled[k];
  return out;
}
