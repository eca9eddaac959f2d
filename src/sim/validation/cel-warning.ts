// x-kubernetes-validations (CEL) rules: the sim stores the object without evaluating them (no CEL evaluator that
// speaks Kubernetes' CEL libraries and cost rules is wired in), and says so on every write as a Warning header, so a
// client never takes silence for a pass.
import type { ServerResponse } from 'node:http';
import type { ResourceType } from '../registry.js';
import { celRules, type StructuralSchema } from './custom-resource.js';

/** One `299 - "…"` Warning per rule of the type's schema (nothing for kinds without rules). */
export function warnUnevaluatedRules(res: ServerResponse, type: ResourceType): void {
  if (type.crd === undefined) return;
  const rules = celRules(type.schema as StructuralSchema | undefined);
  if (rules.length === 0) return;
  const prior = res.getHeader('Warning');
  const list = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
  // Header values must stay printable ASCII on one line.
  const clean = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?');
  res.setHeader('Warning', [...list, ...rules.map((r) => `299 - ${JSON.stringify(clean(`x-kubernetes-validations rule at ${r.path} was not evaluated (the kwatch sim has no CEL evaluator): ${r.rule}`))}`)]);
}
