// From an HTTP write to its field-ownership hook: the manager's name (fieldManager, else the User-Agent's product)
// and the store hook that records an Update or an Apply.
import type { IncomingMessage } from 'node:http';
import type { SimObject } from '../api.js';
import { kubeTime } from '../object-meta.js';
import { groupVersion, type ResourceType } from '../registry.js';
import { recordApply, recordUpdate, type WriteContext } from './ownership.js';

/** kube's managerOrUserAgent: the fieldManager parameter, else the User-Agent up to its first `/` (128 chars at most). */
export function fieldManagerOf(q: URLSearchParams, req: IncomingMessage): string {
  const explicit = q.get('fieldManager');
  if (explicit) return explicit;
  const prefix = (req.headers['user-agent'] ?? '').split('/')[0];
  return prefix.length > 128 ? prefix.slice(0, 128) : prefix;
}

function writeContext(type: ResourceType, manager: string, subresource: string | undefined): WriteContext {
  const sub = subresource && subresource !== 'main' ? subresource : undefined;
  return {
    kind: type.kind, builtIn: type.crd === undefined,
    // An approval writes status conditions only (csrApprovalStrategy): its fields are the status's.
    scope: sub === 'status' || sub === 'approval' ? 'status' : type.hasStatusSubresource ? 'main' : 'all',
    manager, apiVersion: groupVersion(type), now: kubeTime(new Date()),
    ...(sub ? { subresource: sub } : {}),
  };
}

export type FieldsHook = (prev: SimObject | undefined, next: SimObject) => void;

/** The hook of a create, update or patch (operation Update). */
export function updateFields(type: ResourceType, manager: string, subresource?: string): FieldsHook {
  const ctx = writeContext(type, manager, subresource);
  return (prev, next) => recordUpdate(prev, next, ctx);
}

/** The hook of a server-side apply of `config` (operation Apply; conflicts unless `force`). */
export function applyFields(type: ResourceType, manager: string, subresource: string | undefined, config: unknown, force: boolean): FieldsHook {
  const ctx = writeContext(type, manager, subresource);
  return (prev, next) => recordApply(prev, next, config, ctx, force);
}
