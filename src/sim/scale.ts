// The scale subresource: an autoscaling/v1 Scale view of an object's spec.replicas (deployments,
// replicasets, custom resources whose CRD declares a scale subresource), readable and writable.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimObject } from './api.js';
import { SimApiError } from './api.js';
import { jsonDepthError } from './decode-body.js';
import { acceptedPatchTypes, applyJsonPatch, applyMergePatch, PatchError } from './patch.js';
import type { ResourceType } from './registry.js';
import { sendObject } from './respond.js';
import type { ServerContext } from './server-context.js';
import { writeValidator } from './validation/index.js';
import { badRequest, conflict, notFound, unsupportedMediaType } from './status.js';
import { checkFieldsOf, fieldValidationOf, reportFields, strictBodyError, strictPatchError } from './field-validation.js';
import { definitionTree } from './openapi/field-tree.js';
import { DEFAULT_KUBE_VERSION } from './kube-version.js';

const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

interface Scale {
  apiVersion: 'autoscaling/v1';
  kind: 'Scale';
  metadata: SimObject['metadata'];
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

function selectorString(obj: SimObject): string | undefined {
  const matchLabels = ((obj.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector?.matchLabels) ?? {};
  const keys = Object.keys(matchLabels).sort();
  return keys.length ? keys.map((k) => `${k}=${matchLabels[k]}`).join(',') : undefined;
}

export function scaleOf(obj: SimObject): Scale {
  const m = obj.metadata;
  const spec = (obj.spec ?? {}) as { replicas?: number };
  const status = (obj.status ?? {}) as { replicas?: number };
  const selector = selectorString(obj);
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: spec.replicas ?? 1 },
    status: { replicas: status.replicas ?? 0, ...(selector ? { selector } : {}) },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parse(body: string): unknown {
  const deep = jsonDepthError(body);
  if (deep) throw badRequest(`couldn't get version/kind; json parse error: ${deep}`);
  try {
    return JSON.parse(body);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

/** GET, PUT and PATCH on …/{name}/scale. */
export async function handleScale(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, name: string, verb: 'get' | 'update' | 'patch', q: URLSearchParams): Promise<void> {
  const current = ctx.store.getStored(type, namespace, name);
  if (!current) throw notFound(type.resource, type.group, name);
  const obj = current.obj;
  const scale = scaleOf(obj);
  if (verb === 'get') return sendObject(res, 200, scale);

  const mode = fieldValidationOf(q, verb === 'update' ? 'UpdateOptions' : 'PatchOptions');
  const body = await readBody(req);
  let next: Scale;
  let bodyText: string | undefined = body;
  if (verb === 'update') {
    next = parse(body) as Scale;
    const rv = next?.metadata?.resourceVersion;
    if (rv && rv !== String(current.rv)) throw conflict(type.resource, type.group, name);
  } else {
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    try {
      if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') next = applyMergePatch(scale, parse(body)) as Scale;
      else if (contentType === 'application/json-patch+json') { next = applyJsonPatch(scale, parse(body)) as Scale; bodyText = undefined; }
      else throw unsupportedMediaType(acceptedPatchTypes(type.group, ctx.featureGates?.CBORServingAndStorage === true));
    } catch (err) {
      if (err instanceof PatchError) throw badRequest(err.message);
      throw err;
    }
  }
  // The body is a Scale, decoded as strictly as any write (kube's update and patch handlers apply fieldValidation to
  // subresources too, apiserver/pkg/endpoints/handlers/update.go and patch.go): unknown fields are dropped and reported.
  if (next && typeof next === 'object') {
    const problems = checkFieldsOf(definitionTree(SCALE_DEFINITION, ctx.kubeVersion ?? DEFAULT_KUBE_VERSION), next, bodyText, mode);
    reportFields(res, mode, problems, verb === 'update' ? strictBodyError({ kind: 'Scale', version: 'v1' }, problems) : strictPatchError(problems));
  }
  const replicas = next?.spec?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new SimApiError({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      details: { name, group: 'autoscaling', kind: 'Scale', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: must be greater than or equal to 0', field: 'spec.replicas' }] },
    });
  }
  const dryRun = q.getAll('dryRun').includes('All');
  const updated = ctx.store.updateObject(type, { ...obj, spec: { ...(obj.spec as object), replicas } }, { dryRun, subresource: 'main', validate: writeValidator(type) });
  sendObject(res, 200, scaleOf(updated));
}
