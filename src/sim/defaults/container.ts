// core/v1 SetDefaults_Container and the defaults of the types a container holds (ports, probes, env field refs),
// plus the `resources: {}` that Go's encoder always writes (ResourceRequirements is a struct, never omitted).
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The tag of an image reference: "latest" when it has neither tag nor digest, "" with a digest only (ParseImageName). */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  if (colon >= 0) return name.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

/** SetDefaults_Probe and SetDefaults_HTTPGetAction. */
function defaultProbe(probe: unknown): unknown {
  if (!isObject(probe)) return probe;
  const p: Json = { ...probe };
  if (isObject(p.httpGet)) p.httpGet = { ...p.httpGet, path: p.httpGet.path || '/', scheme: p.httpGet.scheme || 'HTTP' };
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  return p;
}

/** SetDefaults_ObjectFieldSelector: a fieldRef without apiVersion means v1. */
export function defaultFieldRef(holder: unknown): unknown {
  if (!isObject(holder) || !isObject(holder.fieldRef) || holder.fieldRef.apiVersion) return holder;
  return { ...holder, fieldRef: { apiVersion: 'v1', ...holder.fieldRef } };
}

function defaultEnv(env: unknown): unknown {
  if (!Array.isArray(env)) return env;
  return env.map((e) => (isObject(e) && isObject(e.valueFrom) ? { ...e, valueFrom: defaultFieldRef(e.valueFrom) } : e));
}

/** A new container with kube's defaults filled in where the client left them out. */
export function defaultContainer(container: unknown): unknown {
  if (!isObject(container)) return container;
  const c: Json = { ...container };
  if (Array.isArray(c.ports)) c.ports = c.ports.map((p) => (isObject(p) && !p.protocol ? { ...p, protocol: 'TCP' } : p));
  if (c.env !== undefined) c.env = defaultEnv(c.env);
  c.resources ??= {};
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (c[probe] !== undefined) c[probe] = defaultProbe(c[probe]);
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  return c;
}
