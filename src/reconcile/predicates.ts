// Event filters before the workqueue (controller-runtime's predicate package): the four built-ins by
// name, or a module's own function; several on one source must all pass (predicate.And). An event a
// predicate drops never reaches the queue; the trigger traces it as `filtered`, naming the predicate.
import type { KubeObject } from '../informer/types.js';
import type { Predicate, PredicateEvent } from './types.js';

export const BUILT_IN_PREDICATES = ['GenerationChanged', 'ResourceVersionChanged', 'LabelChanged', 'AnnotationChanged'] as const;

export interface CompiledPredicate {
  /** The built-in's name, or the function's name (`predicates[1]` when it has none). */
  name: string;
  test(e: PredicateEvent): boolean;
}

/** Update-only filters: creates and deletes always pass, as in controller-runtime. */
const BUILT_INS: Record<(typeof BUILT_IN_PREDICATES)[number], (old: KubeObject, now: KubeObject) => boolean> = {
  GenerationChanged: (old, now) => (old.metadata?.generation ?? 0) !== (now.metadata?.generation ?? 0),
  ResourceVersionChanged: (old, now) => old.metadata?.resourceVersion !== now.metadata?.resourceVersion,
  LabelChanged: (old, now) => !sameMap(old.metadata?.labels, now.metadata?.labels),
  AnnotationChanged: (old, now) => !sameMap(old.metadata?.annotations, now.metadata?.annotations),
};

export function compilePredicates(list: readonly Predicate[] | undefined): CompiledPredicate[] {
  return (list ?? []).map((p, i) => {
    if (typeof p === 'function') return { name: p.name || `predicates[${i}]`, test: (e) => p(e) === true };
    const update = BUILT_INS[p];
    return { name: `${p}Predicate`, test: (e) => e.type !== 'update' || !e.oldObject || update(e.oldObject, e.object) };
  });
}

/** The first predicate that drops the event, or undefined when all pass (copies go to user functions). */
export function firstRejecting(predicates: readonly CompiledPredicate[], e: PredicateEvent): CompiledPredicate | undefined {
  for (const p of predicates) if (!p.test(e)) return p;
  return undefined;
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => Object.hasOwn(b ?? {}, k) && b![k] === a![k]);
}
