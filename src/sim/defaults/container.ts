// core/v1 SetDefaults_Container and the defaults of the types a container holds (ports, probes, env field refs),
// plus the `resources: {}` that Go's encoder always writes (ResourceRequirements is a struct, never omitted).
// A container that already has them all comes back as the same object.
import { mapChanged } from './copy-on-write.js';

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
  const http = isObject(probe.httpGet) ? probe.httpGet : undefined;
  const httpDone = !http || (!!http.path && !!http.scheme);
  if (httpDone && probe.timeoutSeconds !== undefined && probe.periodSeconds !== undefined && probe.successThreshold !== undefined && probe.failureThreshold !== undefined) return probe;
  const p: Json = { ...probe };
  if (http && !httpDone) p.httpGet = { ...http, path: http.path || '/', scheme: http.scheme || 'HTTP' };
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  return p;
}

/**
 * SetDefaults_ObjectFieldSelector (a fieldRef without apiVersion means v1), and a resourceFieldRef's divisor "0" when
 * unset: ResourceFieldSelector.Divisor is a resource.Quantity, a struct that Go's encoder writes though it is omitempty.
 */
export function defaultFieldRef(holder: unknown): unknown {
  if (!isObject(holder)) return holder;
  let out = holder;
  if (isObject(holder.fieldRef) && !holder.fieldRef.apiVersion) out = { ...out, fieldRef: { apiVersion: 'v1', ...holder.fieldRef } };
  const resource = holder.resourceFieldRef;
  if (isObject(resource) && (resource.divisor === undefined || resource.divisor === null)) out = { ...out, resourceFieldRef: { ...resource, divisor: '0' } };
  return out;
}

function defaultEnvVar(e: unknown): unknown {
  if (!isObject(e) || !isObject(e.valueFrom)) return e;
  const valueFrom = defaultFieldRef(e.valueFrom);
  return valueFrom === e.valueFrom ? e : { ...e, valueFrom };
}

function defaultPort(p: unknown): unknown {
  return isObject(p) && !p.protocol ? { ...p, protocol: 'TCP' } : p;
}

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'];

/** The container with kube's defaults filled in where the client left them out (the same object if none was). */
export function defaultContainer(container: unknown): unknown {
  if (!isObject(container)) return container;
  const ports = mapChanged(container.ports, defaultPort);
  const env = mapChanged(container.env, defaultEnvVar);
  const probes = PROBES.map((k) => defaultProbe(container[k]));
  const complete = ports === container.ports && env === container.env && probes.every((p, i) => p === container[PROBES[i]])
    && container.resources !== undefined && container.terminationMessagePath !== undefined && container.terminationMessagePolicy !== undefined && !!container.imagePullPolicy;
  if (complete) return container;
  const c: Json = { ...container };
  if (ports !== undefined) c.ports = ports;
  if (env !== undefined) c.env = env;
  c.resources ??= {};
  PROBES.forEach((k, i) => { if (probes[i] !== undefined) c[k] = probes[i]; });
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  return c;
}
